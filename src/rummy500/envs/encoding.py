"""The flat action encoding: every move of docs/rules.md as an integer of one fixed ``Discrete(N)``.

The same :data:`NUM_ACTIONS` ids serve every player count and every rule option; the seat is
never part of an action (it is always the seat that must act). In id order:

==========================  =====  ============================================================
block                       size   action
==========================  =====  ============================================================
:data:`DRAW`                1      ``draw``: the top card of the stock
:data:`END`                 1      ``end``: the stock is empty, end the hand
:data:`PASS`                1      ``pass``: let a Rummy call window go by
``TAKE + n - 1``            108    ``take n``: the top ``n`` discards, n = 1 … 108
``RUMMY + n - 1``           108    ``rummy n``: call Rummy and take the top ``n`` discards
``DISCARD + card``          53     ``discard card``: 52 naturals, then the joker (52)
``GROUP + i``               377    new group :data:`GROUPS` ``[i]``: 3 or 4 cards, jokers as a rank
``RUN + i``                 336    new 3-card run :data:`RUNS` ``[i]``: jokers as exact cards
``LAYOFF + 9 * slot + k``   324    lay off on meld ``slot + 1`` (36 slots), kind ``k`` below
==========================  =====  ============================================================

Lay-off kinds (the card follows from the meld and the kind): 0 natural at the low end of a run,
1 joker at the low end, 2 natural at the high end, 3 joker at the high end, 4–7 the natural of
clubs, diamonds, hearts, spades in a group, 8 a joker in a group.

Every engine move has exactly one action except **new runs of 4 or more cards**: they are made by
the 3-card run that holds the card that must be used (if any) followed by lay-offs outward, one
card at a time, which scores exactly the same and leaves the same table (:func:`decompose`).
``docs/encoding.md`` has the full argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import TYPE_CHECKING, NamedTuple, Union

from rummy500.engine import Game, Move, Observation
from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK, card_str, played_str
from rummy500.engine.melds import analyze_meld

if TYPE_CHECKING:
    import numpy as np

    from rummy500.engine.melds import TableMeld

#: Where actions are read: a game, or what one seat sees of it (for bots).
Position = Union[Game, Observation]  # noqa: UP007 (a runtime alias)

__all__ = [
    "DISCARD",
    "DRAW",
    "END",
    "GROUP",
    "GROUPS",
    "LAYOFF",
    "LAYOFF_KINDS",
    "MAX_DEPTH",
    "MAX_MELDS",
    "NUM_ACTIONS",
    "PASS",
    "RUMMY",
    "RUN",
    "RUNS",
    "TAKE",
    "action_mask",
    "action_to_move",
    "action_str",
    "decompose",
    "legal_actions",
    "move_to_action",
]

#: The deepest take or Rummy call: the cards of two decks.
MAX_DEPTH = 108
#: The most melds a hand can have: 108 cards, 3 or more a meld.
MAX_MELDS = 36
#: Lay-off kinds per meld slot.
LAYOFF_KINDS = 9

DRAW = 0
END = 1
PASS = 2
TAKE = 3
RUMMY = TAKE + MAX_DEPTH
DISCARD = RUMMY + MAX_DEPTH
GROUP = DISCARD + 53


def _groups() -> tuple[tuple[int, ...], ...]:
    """Every group as the engine writes it: naturals by suit, then jokers as the rank."""
    out = []
    for rank in range(13):
        for k in range(1, 5):
            for suits in combinations(range(4), k):
                naturals = tuple(rank + 13 * s for s in suits)
                for jokers in range(max(0, 3 - k), 4 - k + 1):
                    out.append(naturals + (JOKER_RANK + rank,) * jokers)
    return tuple(out)


def _runs() -> tuple[tuple[int, ...], ...]:
    """Every 3-card run: suit, low end (A-2-3 … Q-K-A), which cards are jokers (not all)."""
    out = []
    for suit in range(4):
        for lo in range(12):
            for jokers in range(7):
                out.append(
                    tuple(
                        (JOKER_AS if jokers >> i & 1 else 0) + suit * 13 + (0 if p == 13 else p)
                        for i, p in enumerate(range(lo, lo + 3))
                    )
                )
    return tuple(out)


#: The cards (as played, in the engine's order) of each group action.
GROUPS = _groups()
RUN = GROUP + len(GROUPS)
#: The cards (as played, in run order) of each 3-card run action.
RUNS = _runs()
LAYOFF = RUN + len(RUNS)
#: The size of the action space.
NUM_ACTIONS = LAYOFF + MAX_MELDS * LAYOFF_KINDS

RUN_LOW, RUN_LOW_JOKER, RUN_HIGH, RUN_HIGH_JOKER, GROUP_JOKER = 0, 1, 2, 3, 8

_MELD_IDS = {cards: GROUP + i for i, cards in enumerate(GROUPS + RUNS)}


_SEAT_MOVES: list[tuple[Move, ...] | None] = [None] * 8


def seat_moves(seat: int) -> tuple[Move, ...]:
    """The move of every action id below :data:`LAYOFF` for ``seat`` (made once)."""
    moves = _SEAT_MOVES[seat]
    if moves is None:
        moves = _SEAT_MOVES[seat] = _make_seat_moves(seat)
    return moves


def _make_seat_moves(seat: int) -> tuple[Move, ...]:
    moves = [Move(seat, "draw"), Move(seat, "end"), Move(seat, "pass")]
    moves += [Move(seat, "take", number=n) for n in range(1, MAX_DEPTH + 1)]
    moves += [Move(seat, "rummy", number=n) for n in range(1, MAX_DEPTH + 1)]
    moves += [Move(seat, "discard", (c,)) for c in range(53)]
    moves += [Move(seat, "meld", cards) for cards in GROUPS + RUNS]
    assert len(moves) == LAYOFF
    return tuple(moves)


@cache
def _seat_ids(seat: int) -> dict[Move, int]:
    return {m: a for a, m in enumerate(seat_moves(seat))}


class _Ends(NamedTuple):
    """What the encoding needs of a meld: run or group, suit or rank, end positions."""

    is_run: bool
    key: int
    lo: int
    hi: int


def _melds(position: Position) -> Sequence[TableMeld | _Ends]:
    if isinstance(position, Game):
        return position.melds
    out = []
    for meld in position.melds:
        if meld.is_run:
            first = meld.cards[0] if meld.cards[0] < 52 else meld.cards[0] - JOKER_AS
            suit, lo = divmod(first, 13)  # a run never starts with a high ace
            out.append(_Ends(True, suit, lo, lo + len(meld.cards) - 1))
        else:
            out.append(_Ends(False, next(c for c in meld.cards if c < 52) % 13, 0, 0))
    return out


def _layoff_action(melds: Sequence[TableMeld | _Ends], move: Move) -> int | None:
    slot = move.number - 1
    if not 0 <= slot < min(len(melds), MAX_MELDS):
        return None
    meld = melds[slot]
    played = move.cards[0]
    base = LAYOFF + LAYOFF_KINDS * slot
    if not meld.is_run:
        if played >= JOKER_RANK:
            return base + GROUP_JOKER
        return base + 4 + played // 13 if played < 52 else None
    joker = JOKER_AS <= played < JOKER_RANK
    card = played - JOKER_AS if joker else played
    if card >= 52:
        return None
    rank = card % 13
    # An ace goes low (position 0) or high (13); any other card below the run's low end.
    low = (move.end == "low" if move.end else meld.lo == 1) if rank == 0 else rank < meld.lo
    return base + (RUN_LOW if low else RUN_HIGH) + joker


def move_to_action(position: Position, move: Move) -> int | None:
    """The action of ``move`` in ``position`` (a :class:`Game`, or a seat's
    :class:`Observation`: lay-offs depend on the table), or ``None`` for a new run of 4 or more
    cards, which is played as a sequence (:func:`decompose`)."""
    action = _seat_ids(move.seat).get(move)
    if action is None and move.verb == "layoff":
        return _layoff_action(_melds(position), move)
    if action is None and move.verb == "meld":
        _is_run, _key, _lo, _hi, cards = analyze_meld(move.cards)
        return _MELD_IDS.get(cards)
    return action


def action_to_move(position: Position, action: int, seat: int | None = None) -> Move:
    """The move that ``action`` stands for in ``position`` (a :class:`Game` or a seat's
    :class:`Observation`), for ``seat`` (by default the seat that must act). Raises
    :class:`ValueError` when the action means nothing here (a lay-off on a meld that is not on
    the table, or of the wrong kind); legality is the mask's business."""
    if seat is None:
        seat = position.to_act
        if seat is None:
            raise ValueError("nobody acts: the hand is over")
    action = int(action)
    if 0 <= action < LAYOFF:
        return (_SEAT_MOVES[seat] or seat_moves(seat))[action]
    if not LAYOFF <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside 0 … {NUM_ACTIONS - 1}")
    slot, kind = divmod(action - LAYOFF, LAYOFF_KINDS)
    melds = _melds(position)
    if slot >= len(melds):
        raise ValueError(f"action {action}: there is no meld {slot + 1} on the table")
    meld = melds[slot]
    if meld.is_run != (kind < 4):
        raise ValueError(
            f"action {action}: meld {slot + 1} is not a {'run' if kind < 4 else 'group'}"
        )
    if kind >= 4:
        played = JOKER_RANK + meld.key if kind == GROUP_JOKER else (kind - 4) * 13 + meld.key
        return Move(seat, "layoff", (played,), slot + 1)
    pos = meld.lo - 1 if kind < RUN_HIGH else meld.hi + 1
    if not 0 <= pos <= 13 or meld.hi - meld.lo >= 12:
        raise ValueError(f"action {action}: nothing fits that end of meld {slot + 1}")
    card = meld.key * 13 + (0 if pos == 13 else pos)
    end = ("low" if pos == 0 else "high") if meld.lo == 1 and meld.hi == 12 else ""
    played = card + JOKER_AS if kind in (RUN_LOW_JOKER, RUN_HIGH_JOKER) else card
    return Move(seat, "layoff", (played,), slot + 1, end)


def legal_actions(position: Position, legal_moves: Sequence[Move] | None = None) -> list[int]:
    """The legal actions of the seat that must act, ascending: exactly the actions whose moves
    are in ``game.legal_moves()`` (new runs of 4 or more cards have no action of their own).
    From an :class:`Observation`, give the legal moves too (a bot is given both)."""
    if legal_moves is not None:
        moves = legal_moves
    elif isinstance(position, Game):
        moves = position.legal_moves()
    else:
        raise ValueError("give the legal moves with an observation")
    if not moves:
        return []
    ids = _seat_ids(moves[0].seat)
    melds = _melds(position)
    out = []
    for move in moves:
        action = ids.get(move)
        if action is None:
            if move.verb != "layoff":
                continue
            action = _layoff_action(melds, move)
            if action is None:
                continue
        out.append(action)
    out.sort()
    return out


def action_mask(position: Position, legal_moves: Sequence[Move] | None = None) -> np.ndarray:
    """The legal actions as a ``(NUM_ACTIONS,)`` ``int8`` array of 0 and 1."""
    import numpy as np

    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(position, legal_moves)] = 1
    return mask


def decompose(position: Position, move: Move) -> list[int]:
    """The actions that play ``move`` now: one action, or for a new run of 4 or more cards the
    3-card run holding the card that must be used (or the lowest that can be melded) and then
    lay-offs, inner cards first, so that the last card in hand is always one that fits."""
    action = move_to_action(position, move)
    if action is not None:
        return [action]
    if move.verb != "meld":
        raise ValueError(f"{move} has no action")
    is_run, _key, _lo, _hi, cards = analyze_meld(move.cards)
    if not is_run:
        raise ValueError(f"{move} has no action")
    must = position.must_use if move.seat == position.turn else -1

    def fits(window: tuple[int, ...]) -> bool:
        if all(c >= JOKER_AS for c in window):
            return False
        if must == JOKER:
            return any(c >= JOKER_AS for c in window)
        return must < 0 or must in window

    start = next(i for i in range(len(cards) - 2) if fits(cards[i : i + 3]))
    slot = len(position.melds)
    base = LAYOFF + LAYOFF_KINDS * slot
    actions = [_MELD_IDS[cards[start : start + 3]]]
    for i in range(start - 1, -1, -1):
        actions.append(base + RUN_LOW + (cards[i] >= JOKER_AS))
    for i in range(start + 3, len(cards)):
        actions.append(base + RUN_HIGH + (cards[i] >= JOKER_AS))
    return actions


def action_str(action: int) -> str:
    """A short description of an action id that needs no game: ``"take 3"``, ``"meld 4H 5H 6H"``,
    ``"layoff joker high end of meld 2"``."""
    action = int(action)
    if action == DRAW:
        return "draw"
    if action == END:
        return "end"
    if action == PASS:
        return "pass"
    if TAKE <= action < RUMMY:
        return f"take {action - TAKE + 1}"
    if RUMMY <= action < DISCARD:
        return f"rummy {action - RUMMY + 1}"
    if DISCARD <= action < GROUP:
        return f"discard {card_str(action - DISCARD)}"
    if GROUP <= action < LAYOFF:
        return "meld " + " ".join(played_str(c) for c in (GROUPS + RUNS)[action - GROUP])
    if LAYOFF <= action < NUM_ACTIONS:
        slot, kind = divmod(action - LAYOFF, LAYOFF_KINDS)
        what = (
            "natural low end",
            "joker low end",
            "natural high end",
            "joker high end",
            "club",
            "diamond",
            "heart",
            "spade",
            "joker",
        )[kind]
        return f"layoff {what} of meld {slot + 1}"
    raise ValueError(f"action {action} is outside 0 … {NUM_ACTIONS - 1}")
