"""Game records (``.r500`` files): reading, writing and replaying them (docs/notation.md).

:meth:`GameRecord.parse` reads a record into a :class:`GameRecord`, the game as data — its
players, rules, and each hand's deal, moves and end — which can be walked position by position
(:meth:`GameRecord.positions`) or asked for any position (:meth:`GameRecord.game_at`), as
python-chess's ``pgn.read_game`` gives a game whose main line can be walked.
:func:`read_record` gives only the game as it stands at the end of the record.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rummy500.engine import (
    Deal,
    Game,
    HandResult,
    IllegalMove,
    InvalidDeal,
    InvalidRules,
    Move,
    NotationError,
    Rules,
    Seat,
    by_seat,
    card_str,
    check_cards_fit,
    decks_for,
    hand_size_for,
    parse_card,
    parse_seat,
    seat_str,
)
from rummy500.engine.cards import JOKER, NUM_CODES, deck
from rummy500.engine.moves import is_number as _is_number
from rummy500.i18n import _

__all__ = [
    "GameRecord",
    "HandRecord",
    "Position",
    "RecordError",
    "format_record",
    "read_record",
    "replay",
    "replay_json",
]


class RecordError(NotationError):
    """A record that cannot be replayed: a malformed line, an impossible deal or an illegal
    move. ``line`` is 1-based; ``text`` is the line as written. ``game`` is the game as it
    stood before that line and ``record`` the record read up to it (each ``None`` when the
    record had not yet said how many players)."""

    def __init__(self, line: int, text: str, reason: str) -> None:
        super().__init__(f"{line}: {reason}")
        self.line = line
        self.text = text
        self.reason = reason
        self.game: Game | None = None
        self.record: GameRecord | None = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand of a record: who dealt, the cards dealt, the moves in the order played (in
    their legal form: a meld's cards in notation order, passes a record left out left out),
    and how the hand ended."""

    #: the hand's number in the game (1 for the first; a record may start later)
    number: int
    #: the seat that dealt it
    dealer: Seat
    #: each seat's cards, the turned-up discard and the stock, top first
    deal: Deal
    #: the moves, in the order played
    moves: tuple[Move, ...]
    #: how the hand ended and what each seat scored (``ended_by``, ``out``, ``capped``,
    #: ``scores``); ``None`` when the record stops before the hand's end
    result: HandResult | None = None
    #: the seed of the project's shuffle that dealt the hand (a record's ``seed:`` line, or a
    #: game's own shuffle), ``None`` when the cards were given
    seed: int | None = None

    @property
    def ended_by(self) -> str | None:
        """``"out"`` (a player went out: :attr:`out`), ``"stock"`` (the stock ran out, or
        automatic play's move cap: ``result.capped``), or ``None`` (the record stops
        before the hand's end)."""
        return None if self.result is None else self.result.ended_by

    @property
    def out(self) -> Seat | None:
        """The seat that went out, if one did."""
        return None if self.result is None else self.result.out

    def is_over(self) -> bool:
        """Whether the record goes to the end of the hand."""
        return self.result is not None


@dataclass(frozen=True, slots=True)
class Position:
    """One position of a record: hand ``hand`` (its number) after its first ``ply`` moves.

    ``game`` is the game as it stood then, a copy of its own (play on it freely); ``move`` is
    the move played from it, ``None`` at the hand's last position (after its last move)."""

    #: the hand's number
    hand: int
    #: how many of the hand's moves are played (0: just dealt)
    ply: int
    #: the game as it stood, a copy of its own
    game: Game
    #: the move played from here (``None``: the hand's last position)
    move: Move | None

    def __repr__(self) -> str:
        then = f", then {self.move}" if self.move is not None else ", the hand's end"
        return f"<Position hand {self.hand}, ply {self.ply}{then}>"


@dataclass(frozen=True)
class GameRecord:
    """A game record as data: what a ``.r500`` file says, checked move by move.

    Read one with :meth:`parse` (or make one of a game with :meth:`from_game`); walk it with
    :meth:`positions` or ask for a position with :meth:`game_at`. Each hand is a
    :class:`HandRecord`: its deal (and seed, when the shuffle dealt it), its moves and how it
    ended. ``str(record)`` is the record in notation (:func:`format_record`).

    ``record.game_at(1, 0)`` is hand 1 just dealt, ``record.game_at(1, 5)`` the same hand after
    its first five moves, ``record.game_at(1)`` after its last; ``record.final_game()`` the
    game at the record's end.
    """

    #: the number of seats (a record's ``players:``)
    players: int
    #: the rules (a record's ``rules:``)
    rules: Rules
    #: every hand of the record, in order
    hands: tuple[HandRecord, ...]
    #: each seat's running total before the record's first hand (a record's ``totals:``)
    initial_totals: tuple[int, ...]
    #: the winner, once the record goes to the end of the game
    winner: Seat | None = None
    #: a game's own seed (``game.seed``) when the record was made of a game, so that
    #: its games deal the hands after the record as the game would; ``None`` for a text
    seed: int | None = None
    #: automatic play's move cap (:attr:`Game.max_moves_per_hand`) of the game the record
    #: was made of: a hand ended by it replays to the same end
    max_moves_per_hand: int | None = None

    @classmethod
    def parse(cls, text: str) -> GameRecord:
        """Read and check a record (docs/notation.md). Raises :class:`RecordError` on the
        first malformed line, impossible deal or illegal move (its ``record`` is the record
        as far as it was read)."""
        reader = _Reader(text)
        try:
            game = reader.run()
        except RecordError as e:
            e.game = reader.game
            e.record = reader.record_so_far()
            raise
        record = _record_of(game, reader.seeds)
        # the reader has played the record already: keep each hand's start, not replay it
        record.__dict__["_starts"] = tuple(reader.starts)
        return record

    @classmethod
    def from_game(cls, game: Game) -> GameRecord:
        """The record of ``game`` so far: its deals and moves. Raises :class:`ValueError`
        for a game that does not know a hand's deal (one made of an observation)."""
        return _record_of(game, None)

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's running total after the record's last finished hand."""
        totals = list(self.initial_totals)
        for hand in self.hands:
            if hand.result is not None:
                for seat, score in enumerate(hand.result.scores):
                    totals[seat] += score
        return tuple(totals)

    def is_game_over(self) -> bool:
        """Whether the record goes to the end of the game (somebody has won)."""
        return self.winner is not None

    def hand(self, number: int) -> HandRecord:
        """The hand numbered ``number`` (:class:`IndexError` if the record has none)."""
        return self.hands[self._index(number)]

    def positions(self) -> Iterator[Position]:
        """Every position of the record in order: for each hand, the position before each of
        its moves, then the position after its last (so a hand of ``n`` moves has ``n + 1``).
        Each position's game is a copy of its own."""
        for i, hand in enumerate(self.hands):
            game = self._starts[i].clone()
            for ply, move in enumerate(hand.moves):
                yield Position(hand.number, ply, game.clone(), move)
                game.play(move)
            yield Position(hand.number, len(hand.moves), game, None)

    def game_at(self, hand: int, ply: int | None = None) -> Game:
        """The game in hand number ``hand`` after its first ``ply`` moves (``0``: just dealt;
        ``None``: after its last move), a copy of its own. Raises :class:`IndexError` for a
        hand the record does not have, or a ply past the hand's moves."""
        i = self._index(hand)
        moves = self.hands[i].moves
        if ply is None:
            ply = len(moves)
        if not 0 <= ply <= len(moves):
            raise IndexError(
                _("hand {n} has {moves} moves: no position after move {ply}").format(
                    n=hand, moves=len(moves), ply=ply
                )
            )
        game = self._starts[i].clone()
        for move in moves[:ply]:
            game.play(move)
        return game

    def final_game(self) -> Game:
        """The game as it stands at the end of the record (what :func:`read_record` gives)."""
        if not self.hands:
            return self._new_game()
        return self.game_at(self.hands[-1].number)

    def _index(self, number: int) -> int:
        for i, hand in enumerate(self.hands):
            if hand.number == number:
                return i
        if not self.hands:
            raise IndexError(_("the record has no hand"))
        raise IndexError(
            _("the record has no hand {n}: its hands are {first} to {last}").format(
                n=number, first=self.hands[0].number, last=self.hands[-1].number
            )
        )

    def _new_game(self) -> Game:
        return Game(
            self.players,
            self.rules,
            seed=self.seed,
            max_moves_per_hand=self.max_moves_per_hand,
            totals=self.initial_totals,
        )

    @cached_property
    def _starts(self) -> tuple[Game, ...]:
        """The game just after each hand's deal (made once, when first asked for)."""
        game = self._new_game()
        starts = []
        for hand in self.hands:
            game.deal(hand.deal, dealer=hand.dealer, number=hand.number)
            starts.append(game.clone())
            for move in hand.moves:
                game.play(move)
        return tuple(starts)

    def __str__(self) -> str:
        return format_record(self)

    def __repr__(self) -> str:
        hands = (
            f"hands {self.hands[0].number} to {self.hands[-1].number}" if self.hands else "no hand"
        )
        end = f"won by {seat_str(self.winner)}" if self.winner is not None else "not over"
        return f"<GameRecord {self.players} players, {hands}, {end}, totals {list(self.totals)}>"


def _record_of(game: Game, seeds: dict[int, int] | None) -> GameRecord:
    """The record of ``game``: with the seeds a text gave (``seeds``), or else each hand's
    seed found by dealing the game's own shuffle again."""
    hands = []
    for i, hand in enumerate(game.record):
        if hand.deal is None:
            raise ValueError(
                _("this game does not know the deal of hand {n}").format(n=hand.number)
            )
        if seeds is not None:
            seed = seeds.get(hand.number)
        else:
            seed = game.hand_seed(hand.number)
            if Deal.shuffled(game.players, game.rules, seed, hand.dealer) != hand.deal:
                seed = None
        result = game.hand_results[i] if i < len(game.hand_results) else None
        hands.append(
            HandRecord(hand.number, hand.dealer, hand.deal, tuple(hand.moves), result, seed)
        )
    return GameRecord(
        players=game.players,
        rules=game.rules,
        hands=tuple(hands),
        initial_totals=tuple(_initial_totals(game)),
        winner=game.winner,
        seed=None if seeds is not None else game.seed,
        max_moves_per_hand=None if seeds is not None else game.max_moves_per_hand,
    )


def _initial_totals(game: Game) -> list[int]:
    totals = list(game.totals)
    for r in game.hand_results:
        for seat, s in enumerate(r.scores):
            totals[seat] -= s
    return totals


@dataclass
class _DealLines:
    """The deal of a hand as its lines come in."""

    number: int
    line: int
    dealer: int | None = None
    hands: dict[int, tuple[int, ...]] | None = None
    discard: int | None = None
    stock: tuple[int, ...] | None = None
    seed: int | None = None


def read_record(text: str) -> Game:
    """Read and check a record; return the game as it stands at the record's end.

    Raises :class:`RecordError` on the first malformed line, impossible deal or illegal move;
    its ``game`` is the game as it stood before that line (``None`` before the first hand).
    To step through the record, read it with :meth:`GameRecord.parse`.
    """
    reader = _Reader(text)
    try:
        return reader.run()
    except RecordError as e:
        e.game = reader.game
        e.record = reader.record_so_far()
        raise


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.players: int | None = None
        self.rules = Rules()
        self.totals: list[int] | None = None
        self.game: Game | None = None
        self.pending: _DealLines | None = None
        self.lineno = 0
        self.text = ""
        self.header_seen: set[str] = set()
        #: the ``seed:`` of each hand dealt by one, and the game just after each deal
        self.seeds: dict[int, int] = {}
        self.starts: list[Game] = []

    def record_so_far(self) -> GameRecord | None:
        """The record of the hands read so far (``None`` before ``players:``)."""
        if self.game is not None:
            return _record_of(self.game, self.seeds)
        if self.players is None:
            return None
        return _record_of(self.new_game(), self.seeds)

    def fail(self, reason: str) -> RecordError:
        return RecordError(self.lineno, self.text, reason)

    def run(self) -> Game:
        for i, raw in enumerate(self.lines, start=1):
            self.lineno, self.text = i, raw
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                self.line(line)
            except RecordError:
                raise
            except (NotationError, IllegalMove, InvalidDeal, InvalidRules, ValueError) as e:
                raise self.fail(str(e)) from None
        if self.pending is not None:
            self.lineno = self.pending.line
            self.text = self.lines[self.pending.line - 1] if self.lines else ""
            self.start_hand()
        if self.game is None:
            if self.players is None:
                self.lineno, self.text = max(1, len(self.lines)), ""
                raise self.fail(_("the record does not say how many players ('players: N')"))
            self.game = self.new_game()
        return self.game

    def new_game(self) -> Game:
        assert self.players is not None
        return Game(self.players, self.rules, totals=self.totals)

    def line(self, line: str) -> None:
        key, colon, value = line.partition(":")
        key = key.strip().lower()
        words = line.split()
        if words[0].lower() == "hand" and not colon:
            self.hand_line(words)
        elif colon and key in ("players", "rules", "totals"):
            self.header_line(key, value.strip())
        elif colon and (key in ("dealer", "discard", "stock", "seed") or _is_seat(key)):
            self.deal_line(key, value.strip())
        elif _is_seat(words[0]) and not colon:
            self.move_line(line)
        else:
            raise self.fail(_("cannot read this line"))

    def header_line(self, key: str, value: str) -> None:
        if self.game is not None or self.pending is not None:
            raise self.fail(
                _("'{key}:' belongs in the header, before the first hand").format(key=key)
            )
        if key in self.header_seen:
            raise self.fail(_("'{key}:' is given twice").format(key=key))
        self.header_seen.add(key)
        if key == "players":
            if not _is_number(value) or not 2 <= int(value) <= 8:
                raise self.fail(
                    _("players must be a number from 2 to 8, not {v!r}").format(v=value)
                )
            self.players = int(value)
        elif key == "rules":
            self.rules = Rules.parse(value)
        else:
            if self.players is None:
                raise self.fail(_("'players:' must come before 'totals:'"))
            totals = [0] * self.players
            given = set()
            for item in value.split():
                seat_text, eq, number = item.partition("=")
                seat = parse_seat(seat_text)
                if not eq or seat >= self.players:
                    raise self.fail(
                        _("{item!r} is not a seat's total like P1=120").format(item=item)
                    )
                try:
                    totals[seat] = int(number)
                except ValueError:
                    raise self.fail(
                        _("{item!r} is not a seat's total like P1=120").format(item=item)
                    ) from None
                given.add(seat)
            self.totals = totals

    def hand_line(self, words: list[str]) -> None:
        if len(words) != 2 or not _is_number(words[1]) or int(words[1]) < 1:
            raise self.fail(_("a hand starts with 'hand N'"))
        if self.players is None:
            raise self.fail(_("the record does not say how many players ('players: N')"))
        number = int(words[1])
        if self.pending is not None:
            saved = self.lineno, self.text
            self.lineno = self.pending.line
            self.text = self.lines[self.lineno - 1]
            self.start_hand()
            self.lineno, self.text = saved
        game = self.game
        if game is not None:
            if game.is_game_over():
                raise self.fail(
                    _("the game is over: {seat} has won").format(seat=seat_str(game.winner or 0))
                )
            if not game.is_hand_over():
                raise self.fail(_("hand {n} is not over").format(n=game.hand_number))
            if number != game.hand_number + 1:
                raise self.fail(
                    _("expected hand {n}, not hand {m}").format(n=game.hand_number + 1, m=number)
                )
        self.pending = _DealLines(number, self.lineno)

    def deal_line(self, key: str, value: str) -> None:
        p = self.pending
        if p is None:
            if self.game is None:
                raise self.fail(_("'{key}:' must follow a 'hand N' line").format(key=key))
            raise self.fail(_("the deal of this hand is already complete; moves have begun"))
        assert self.players is not None
        if key == "dealer":
            if p.dealer is not None:
                raise self.fail(_("'dealer:' is given twice"))
            dealer = parse_seat(value)
            if dealer >= self.players:
                raise self.fail(_("there is no seat {seat} at this table").format(seat=value))
            if self.game is not None and self.game.hand_number:
                expected = (self.game.dealer + 1) % self.players
                if dealer != expected:
                    raise self.fail(
                        _("the deal passes to the left: {seat} deals this hand").format(
                            seat=seat_str(expected)
                        )
                    )
            p.dealer = dealer
        elif key == "seed":
            if p.hands is not None or p.discard is not None or p.stock is not None:
                raise self.fail(_("a hand gives either 'seed:' or the cards, not both"))
            try:
                p.seed = int(value)
            except ValueError:
                raise self.fail(_("the seed must be a whole number")) from None
        else:
            if p.seed is not None:
                raise self.fail(_("a hand gives either 'seed:' or the cards, not both"))
            cards = tuple(parse_card(w) for w in value.split())
            if key == "discard":
                if p.discard is not None:
                    raise self.fail(_("'discard:' is given twice"))
                if len(cards) != 1:
                    raise self.fail(_("'discard:' names exactly one card"))
                p.discard = cards[0]
            elif key == "stock":
                if p.stock is not None:
                    raise self.fail(_("'stock:' is given twice"))
                p.stock = cards
            else:
                seat = parse_seat(key)
                if seat >= self.players:
                    raise self.fail(
                        _("there is no seat {seat} at this table").format(seat=key.upper())
                    )
                if p.hands is None:
                    p.hands = {}
                if seat in p.hands:
                    raise self.fail(
                        _("the cards of {seat} are given twice").format(seat=seat_str(seat))
                    )
                size = hand_size_for(self.players)
                if len(cards) != size:
                    raise self.fail(
                        _("{seat} has {n} cards; with {players} players each gets {size}").format(
                            seat=seat_str(seat), n=len(cards), players=self.players, size=size
                        )
                    )
                p.hands[seat] = cards
            named = list(p.stock or ()) + ([p.discard] if p.discard is not None else [])
            for hand in (p.hands or {}).values():
                named.extend(hand)
            check_cards_fit(named, self.players, self.rules)

    def start_hand(self) -> None:
        """Deal the pending hand (its deal lines are complete)."""
        p = self.pending
        assert p is not None and self.players is not None
        self.pending = None
        if self.game is None:
            self.game = self.new_game()
        game = self.game
        first = game.hand_number == 0
        dealer = p.dealer
        if dealer is None:
            dealer = 0 if first else (game.dealer + 1) % self.players
        if p.seed is not None:
            deal = Deal.shuffled(self.players, self.rules, p.seed, dealer)
        else:
            deal = self.explicit_deal(p)
        game.deal(deal, dealer=dealer, number=p.number)
        if p.seed is not None:
            self.seeds[p.number] = p.seed
        self.starts.append(game.clone())

    def explicit_deal(self, p: _DealLines) -> Deal:
        assert self.players is not None
        hands = p.hands or {}
        for seat in range(self.players):
            if seat not in hands:
                raise self.fail(
                    _("hand {n}: the cards of {seat} are not given").format(
                        n=p.number, seat=seat_str(seat)
                    )
                )
        if p.discard is None:
            raise self.fail(
                _("hand {n}: the turned-up 'discard:' card is not given").format(n=p.number)
            )
        counts = [0] * NUM_CODES
        for c in deck(decks_for(self.players), self.rules.with_jokers):
            counts[c] += 1
        named = (
            [c for s in range(self.players) for c in hands[s]] + [p.discard] + list(p.stock or ())
        )
        for c in named:
            counts[c] -= 1
        rest = [c for c in range(NUM_CODES) for _ in range(counts[c])]
        rest.sort(key=lambda c: (c == JOKER, c))
        return Deal(
            tuple(tuple(hands[s]) for s in range(self.players)),
            p.discard,
            tuple(p.stock or ()) + tuple(rest),
        )

    def move_line(self, line: str) -> None:
        if self.pending is not None:
            self.start_hand()
        if self.game is None:
            raise self.fail(_("a move must follow a 'hand N' line and its deal"))
        self.game.play(Move.parse(line))


def _is_seat(word: str) -> bool:
    w = word.strip().upper()
    return len(w) >= 2 and w[0] == "P" and _is_number(w[1:])


def format_record(game: Game | GameRecord, comment: str | None = None) -> str:
    """The record of ``game`` (a game, or a :class:`GameRecord`) with every deal written out
    (the files this program writes).

    A hand that ended at the move cap of automatic play cannot be written in the notation: the
    record stops in the middle of it, with a comment saying so.
    """
    record = game if isinstance(game, GameRecord) else _record_of(game, {})
    lines: list[str] = []
    if comment:
        lines.extend(f"# {c}" for c in comment.splitlines())
    lines.append(f"players: {record.players}")
    lines.append(f"rules: {record.rules}")
    if any(record.initial_totals):
        lines.append(
            "totals: " + " ".join(f"{seat_str(s)}={t}" for s, t in enumerate(record.initial_totals))
        )
    for hand in record.hands:
        lines.append("")
        lines.append(f"hand {hand.number}")
        lines.append(f"dealer: {seat_str(hand.dealer)}")
        for seat, cards in enumerate(hand.deal.hands):
            lines.append(f"{seat_str(seat)}: " + " ".join(card_str(c) for c in cards))
        lines.append(f"discard: {card_str(hand.deal.discard)}")
        lines.append("stock: " + " ".join(card_str(c) for c in hand.deal.stock))
        lines.extend(str(m) for m in hand.moves)
        if hand.result is not None and hand.result.capped:
            # The notation cannot say that a hand ended at the move cap of automatic play, so
            # the record stops here, in the middle of that hand (docs/notation.md allows it).
            lines.append(
                f"# hand {hand.number} reached the move cap of automatic play and was scored as "
                "if the stock had run out; the record stops here"
            )
            break
    return "\n".join(lines) + "\n"


def replay_json(game: Game | GameRecord) -> dict[str, Any]:
    """The replay summary of docs/notation.md for ``game`` (a game, or a
    :class:`GameRecord`)."""
    if isinstance(game, GameRecord):
        results = [h.result for h in game.hands if h.result is not None]
        totals: list[int] | tuple[int, ...] = game.totals
    else:
        results, totals = game.hand_results, game.totals
    return {
        "status": "finished" if game.is_game_over() else "in progress",
        "hands": [
            {
                "scores": by_seat(r.scores),
                "ended_by": r.ended_by,
                "out": None if r.out is None else seat_str(r.out),
            }
            for r in results
        ],
        "totals": by_seat(totals),
        "winner": None if game.winner is None else seat_str(game.winner),
    }


def replay(text: str) -> dict[str, Any]:
    """Replay a record; return its summary (raises :class:`RecordError`)."""
    return replay_json(read_record(text))
