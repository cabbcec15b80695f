"""Game records (``.r500`` files): reading, writing and replaying them (docs/notation.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rummy500.engine import (
    Deal,
    Game,
    IllegalMove,
    InvalidDeal,
    InvalidRules,
    Move,
    NotationError,
    Rules,
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

__all__ = ["RecordError", "format_record", "read_record", "replay", "replay_json"]


class RecordError(NotationError):
    """A record that cannot be replayed: a malformed line, an impossible deal or an illegal
    move. ``line`` is 1-based; ``text`` is the line as written."""

    def __init__(self, line: int, text: str, reason: str) -> None:
        super().__init__(f"{line}: {reason}")
        self.line = line
        self.text = text
        self.reason = reason
        self.game: Game | None = None


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
    """Read and check a record; return the game it describes, as far as it goes.

    Raises :class:`RecordError` on the first malformed line, impossible deal or illegal move;
    its ``game`` is the game as it stood before that line (``None`` before the first hand).
    """
    reader = _Reader(text)
    try:
        return reader.run()
    except RecordError as e:
        e.game = reader.game
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


def format_record(game: Game, comment: str | None = None) -> str:
    """The record of ``game`` with every deal written out (the files this program writes).

    A hand that ended at the move cap of automatic play cannot be written in the notation: the
    record stops in the middle of it, with a comment saying so.
    """
    lines: list[str] = []
    if comment:
        lines.extend(f"# {c}" for c in comment.splitlines())
    lines.append(f"players: {game.players}")
    lines.append(f"rules: {game.rules}")
    initial = list(game.totals)
    for r in game.hand_results:
        for seat, s in enumerate(r.scores):
            initial[seat] -= s
    if any(initial):
        lines.append("totals: " + " ".join(f"{seat_str(s)}={t}" for s, t in enumerate(initial)))
    for i, hand in enumerate(game.record):
        if hand.deal is None:
            raise ValueError(
                _("this game does not know the deal of hand {n}").format(n=hand.number)
            )
        lines.append("")
        lines.append(f"hand {hand.number}")
        lines.append(f"dealer: {seat_str(hand.dealer)}")
        for seat, cards in enumerate(hand.deal.hands):
            lines.append(f"{seat_str(seat)}: " + " ".join(card_str(c) for c in cards))
        lines.append(f"discard: {card_str(hand.deal.discard)}")
        lines.append("stock: " + " ".join(card_str(c) for c in hand.deal.stock))
        lines.extend(str(m) for m in hand.moves)
        if i < len(game.hand_results) and game.hand_results[i].capped:
            # The notation cannot say that a hand ended at the move cap of automatic play, so
            # the record stops here, in the middle of that hand (docs/notation.md allows it).
            lines.append(
                f"# hand {hand.number} reached the move cap of automatic play and was scored as "
                "if the stock had run out; the record stops here"
            )
            break
    return "\n".join(lines) + "\n"


def replay_json(game: Game) -> dict[str, Any]:
    """The replay summary of docs/notation.md for ``game``."""

    def by_seat(values: list[int] | tuple[int, ...]) -> dict[str, int]:
        return {seat_str(s): v for s, v in enumerate(values)}

    return {
        "status": "finished" if game.is_game_over() else "in progress",
        "hands": [
            {
                "scores": by_seat(r.scores),
                "ended_by": r.ended_by,
                "out": None if r.out is None else seat_str(r.out),
            }
            for r in game.hand_results
        ],
        "totals": by_seat(game.totals),
        "winner": None if game.winner is None else seat_str(game.winner),
    }


def replay(text: str) -> dict[str, Any]:
    """Replay a record; return its summary (raises :class:`RecordError`)."""
    return replay_json(read_record(text))
