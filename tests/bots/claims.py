"""A checker of the claims of why (``rummy500.bots.why``): every :class:`Reason` of an
explanation checked against the game itself — every hand, the stock, the table — with the
engine's own rules of melds and scores, not with the sentence's reading of the seat's
observation. Used by the tests of hints and of the game review.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import product

from rummy500.bots.evaluate import Evaluation
from rummy500.bots.reading import read_hand, table_fits
from rummy500.bots.why import Explanation, Reason
from rummy500.engine import JOKER, Game, IllegalMove, Move, card_counts, card_values, physical
from rummy500.engine.cards import JOKER_AS, JOKER_RANK, decks_for
from rummy500.engine.melds import analyze_meld, can_meld_with

#: What each joker may stand for in a meld: any card, or any rank of a group.
_DECLARATIONS = (*range(JOKER_AS, JOKER_AS + 52), *range(JOKER_RANK, JOKER_RANK + 13))


def is_meld(played: Sequence[int]) -> bool:
    """Whether ``played`` (cards as played: jokers declared) is a valid meld."""
    try:
        analyze_meld(tuple(played))
    except IllegalMove:
        return False
    return True


def makes_meld(cards: Iterable[int]) -> bool:
    """Whether these cards of a hand (jokers as the joker) can be put down as one meld."""
    cards = list(cards)
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    return any(is_meld([*naturals, *d]) for d in product(_DECLARATIONS, repeat=jokers))


def fits(card: int, melds: Iterable[Sequence[int]]) -> bool:
    """Whether ``card`` (a natural, or the joker) can be laid off on one of ``melds``."""
    choices = _DECLARATIONS if card == JOKER else (card,)
    return any(is_meld([*meld, c]) for meld in melds for c in choices)


def contains(big: Iterable[int], small: Iterable[int]) -> bool:
    """Whether the multiset ``big`` holds the multiset ``small``."""
    have = Counter(big)
    return all(have[c] >= n for c, n in Counter(small).items())


class _Position:
    """The facts of the game at a seat's decision."""

    def __init__(self, game: Game, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.obs = game.observation(seat)
        self.hand = list(game.hand(seat))
        self.table = [m.cards for m in self.obs.melds]
        self.values = card_values(game.rules)
        self.copies = decks_for(game.players)

    def unseen(self, card: int) -> int:
        """Copies of ``card`` in the stock or in another hand, not known to be there."""
        count = self.game.stock.count(card)
        for s in range(self.game.players):
            if s != self.seat:
                count += self.game.hand(s).count(card) - self.game.known_cards(s).count(card)
        return count

    def gone(self, card: int) -> bool:
        """Every copy of ``card`` is on the table or known in another hand."""
        on_table = sum(physical(c) == card for m in self.table for c in m)
        known = sum(
            self.game.known_cards(s).count(card) for s in range(self.game.players) if s != self.seat
        )
        return on_table + known == self.copies

    def thirds(self, card: int) -> set[int]:
        """The natural cards that would make a meld with ``card`` and another card of the
        hand."""
        rest = list(self.hand)
        rest.remove(card)
        return {y for x in set(rest) for y in range(52) if makes_meld([card, x, y])}

    def left(self, cards: Sequence[int]) -> int:
        reading = read_hand(cards, table_fits(self.obs.melds), self.game.rules.values)
        return sum(self.values[c] for c in reading.deadwood)

    def after(self, move: Move) -> list[int]:
        rest = list(self.hand)
        for c in move.cards:
            rest.remove(physical(c))
        return rest


def check(
    game: Game,
    seat: int,
    explanation: Explanation,
    *,
    evaluation: Evaluation | None = None,
    gain: float | None = None,
) -> list[str]:
    """What is false in ``explanation``, said by ``seat`` in ``game`` (the position it was made
    in): one line per false claim, none when all are true. ``evaluation``: the one that
    compared the moves; ``gain``: the points the sentence was told the move gains."""
    at = _Position(game, seat)
    problems = []
    for reason in explanation.reasons:
        try:
            problem = _check(at, explanation, reason, evaluation, gain)
        except Exception as e:  # a claim that cannot even be checked is false
            problem = f"cannot be checked: {e!r}"
        if problem:
            problems.append(f"{reason}: {problem}")
    return problems


def _moves(explanation: Explanation) -> list[Move]:
    return [m for m in (explanation.move, explanation.instead) if m is not None]


def _check(
    at: _Position,
    explanation: Explanation,
    reason: Reason,
    evaluation: Evaluation | None,
    gain: float | None,
) -> str | None:
    code, card, cards = reason.code, reason.card, reason.cards
    hand = at.hand
    if code == "joker":
        if card != JOKER or reason.points != at.values[JOKER]:
            return "not a joker, or not its value"
        return None
    if code == "in_meld":
        if card not in cards or not contains(hand, cards) or not makes_meld(cards):
            return "not a meld of the hand with the card"
        return None
    if code == "fits_table":
        return None if fits(card, at.table) else "fits no meld on the table"
    if code == "gives_meld":
        held = at.game.hand(reason.seat)
        if reason.seat == at.seat or tuple(sorted(cards)) != at.game.known_cards(reason.seat):
            return "not the cards that seat is known to hold"
        if not contains(held, cards):
            return "that seat does not hold them"
        if not can_meld_with(card, card_counts([*cards, card])):
            return "the card makes no meld with them"
        return None
    if code == "goes_with":
        if card not in hand or reason.other not in hand or reason.other == card:
            return "the cards are not both in the hand"
        for out in cards:
            if not makes_meld([card, reason.other, out]):
                return f"{out} makes no meld with them"
            if not at.unseen(out):
                return f"{out} cannot come: every copy is in sight"
        return None
    if code == "lone":
        if card not in hand:
            return "not in the hand"
        return "it goes with another card" if at.thirds(card) else None
    if code == "outs_gone":
        if card not in hand:
            return "not in the hand"
        thirds = at.thirds(card)
        if not thirds or not thirds <= set(cards):
            return f"the cards that go with it are {sorted(thirds)}"
        missing = [c for c in cards if not at.gone(c)]
        return f"{missing} are not all on the table or known elsewhere" if missing else None
    if code == "costly":
        if card not in hand or reason.points != at.values[card] or reason.points < 10:
            return "not its value"
        return None
    if code in ("take_meld", "take_meld_taken", "take_layoff", "take_more", "take_no_meld"):
        return _check_take(at, explanation, reason)
    if code == "scores":
        move = next((m for m in _moves(explanation) if m.cards == cards), None)
        if move is None or move.verb not in ("meld", "layoff"):
            return "no meld or lay-off of these cards is compared"
        probe = at.game.clone()
        before = probe.points[at.seat]
        probe.play(move)
        scored = probe.points[at.seat] - before
        return None if scored == reason.points else f"it scores {scored}"
    if code == "opens_spots":
        move = next((m for m in _moves(explanation) if m.cards == cards), None)
        if move is None or move.verb != "meld":
            return "no meld of these cards is compared"
        _r, _k, _lo, _hi, made = analyze_meld(move.cards)
        for spot in reason.spots:
            if fits(spot, at.table) or not fits(spot, [made]):
                return f"{spot} is not a new spot on the meld"
            if not at.unseen(spot):
                return f"{spot} cannot come to the others"
        return None
    if code == "leaves":
        move, instead = explanation.move, explanation.instead
        if instead is None:
            return "no other move"
        left, then = at.left(at.after(move)), at.left(at.after(instead))
        if (left, then) != (reason.points, reason.than) or left >= then:
            return f"they leave {left} and {then}"
        return None
    if code in ("went_out", "picked_up"):
        return _check_sampled(explanation, reason, evaluation)
    if code == "gain":
        if gain is None or reason.points != round(gain) or reason.points < 1:
            return f"the gain is {gain}"
        return None
    return _check_plain(at, explanation, reason, evaluation)


def _check_take(at: _Position, explanation: Explanation, reason: Reason) -> str | None:
    # what a take gains is said of the move, what it costs of the move it is compared with
    # (or of the move itself when it stands alone: a hint's)
    costs = reason.code in ("take_more", "take_no_meld")
    take = explanation.instead if costs and explanation.instead else explanation.move
    if take.verb in ("take", "rummy"):
        taken = list(at.obs.discard_pile[-take.number :])
    elif reason.code == "take_no_meld" and take.verb == "draw":
        taken = list(at.obs.discard_pile[-1:])  # a draw: the top card left
    else:
        return "not said of a take"
    deepest = taken[0]
    code, card, cards = reason.code, reason.card, reason.cards
    if code == "take_more":
        more = at.left([*at.hand, *taken]) - at.left(at.hand)
        if reason.k != len(taken) or reason.points != more or more <= 0:
            return f"it leaves {more} more"
        return None
    if card != deepest:
        return "not the deepest card taken"
    if code == "take_no_meld":
        if can_meld_with(card, card_counts([*at.hand, *taken])):
            return "it makes a meld"
        return None
    if code == "take_layoff":
        return None if fits(card, at.table) else "it fits no meld on the table"
    if card not in cards or not makes_meld(cards) or not contains([*at.hand, *taken], cards):
        return "not a meld of the hand and the cards taken"
    rest = list(cards)
    rest.remove(card)
    from_hand = contains(at.hand, rest)
    if (code == "take_meld") != from_hand:
        return "the meld's other cards come from elsewhere"
    return None


def _check_sampled(
    explanation: Explanation, reason: Reason, evaluation: Evaluation | None
) -> str | None:
    if evaluation is None or explanation.instead is None:
        return "no sampled deals to say it of"
    mine, other = evaluation.value(explanation.move), evaluation.value(explanation.instead)
    if mine is None or other is None or reason.n != evaluation.samples:
        return "not the moves or the deals compared"
    if reason.code == "went_out":
        if (reason.k, reason.than) != (mine.went_out, other.went_out) or reason.k <= reason.than:
            return f"they went out in {mine.went_out} and {other.went_out}"
        return None
    if explanation.instead.verb != "discard" or reason.card != explanation.instead.cards[0]:
        return "not the card discarded"
    return None if reason.k == other.picked_up else f"picked up in {other.picked_up}"


def _check_plain(
    at: _Position, explanation: Explanation, reason: Reason, evaluation: Evaluation | None
) -> str | None:
    """A hint's last resort: words for the search's own judgement, said of its own move."""
    if explanation.instead is not None:
        return "a last resort said in a comparison"
    top = at.obs.discard_pile[-1] if at.obs.discard_pile else None
    if reason.code == "stock_better":
        if reason.card != top or not can_meld_with(top, card_counts([*at.hand, top])):
            return "not the top card, or it makes no meld"
    elif reason.code == "take_better":
        move = explanation.move
        if move.verb not in ("take", "rummy") or reason.card != at.obs.discard_pile[-move.number]:
            return "not the deepest card taken"
    if evaluation is not None and evaluation.value(explanation.move) is None:
        return "a move the search did not judge"
    return None
