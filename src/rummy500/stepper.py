"""``rummy500 replay --step``: a game record stepped through in the terminal.

The record is a :class:`~rummy500.notation.GameRecord`; a :class:`Cursor` says where the reader
is in it (a hand and the moves of it played) and moves a move or a hand, forwards or backwards;
:func:`position_view` draws the game of that position (:meth:`GameRecord.game_at
<rummy500.notation.GameRecord.game_at>`) with rich: every hand face up, as the record has them,
the stock, the discard pile, the melds, the last move and the next in words, and at the end of
a hand how it ended. :func:`step` reads keys (:data:`KEYS`, from :func:`terminal_keys`) until
``q``; :func:`print_positions` prints every position, one after another, where there is no
terminal to step in. Nothing here decides what is legal: the record was checked when it was
read.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from rich.console import Console, Group
from rich.rule import Rule
from rich.text import Text

from rummy500.engine import Game, seat_str
from rummy500.engine.reasons import card_label, played_label
from rummy500.i18n import _, ngettext
from rummy500.notation import GameRecord, HandRecord
from rummy500.words import describe_move, is_red

__all__ = [
    "KEYS",
    "Action",
    "Cursor",
    "position_view",
    "print_positions",
    "split_keys",
    "step",
    "terminal_keys",
]

Action = Literal["next", "previous", "next_hand", "previous_hand", "first", "last", "quit"]

#: What each key does: arrows (as terminals send them, and as Windows does), letters, space.
KEYS: dict[str, Action] = {
    "\x1b[C": "next",
    "\x1bOC": "next",
    "\xe0M": "next",
    "\x00M": "next",
    "l": "next",
    " ": "next",
    "\r": "next",
    "\n": "next",
    "\x1b[D": "previous",
    "\x1bOD": "previous",
    "\xe0K": "previous",
    "\x00K": "previous",
    "h": "previous",
    "\x7f": "previous",
    "\x08": "previous",
    "\x1b[B": "next_hand",
    "\x1bOB": "next_hand",
    "\xe0P": "next_hand",
    "\x00P": "next_hand",
    "\x1b[6~": "next_hand",
    "j": "next_hand",
    "\x1b[A": "previous_hand",
    "\x1bOA": "previous_hand",
    "\xe0H": "previous_hand",
    "\x00H": "previous_hand",
    "\x1b[5~": "previous_hand",
    "k": "previous_hand",
    "\x1b[H": "first",
    "\x1b[1~": "first",
    "\x1bOH": "first",
    "\xe0G": "first",
    "\x00G": "first",
    "g": "first",
    "\x1b[F": "last",
    "\x1b[4~": "last",
    "\x1bOF": "last",
    "\xe0O": "last",
    "\x00O": "last",
    "G": "last",
    "q": "quit",
    "Q": "quit",
    "\x1b": "quit",
    "\x04": "quit",
}


#: One key as a terminal sends it: an escape sequence (CSI or SS3), or one character.
_KEY = re.compile(r"\x1b\[[0-9;]*[@-~]|\x1bO.|[\x00\xe0].|.", re.DOTALL)


def split_keys(data: str) -> list[str]:
    r"""The keys in what one read of a terminal returned (several, when keys come faster than
    the positions are drawn): ``"\x1b[C\x1b[Cq"`` is two right arrows and ``q``."""
    return _KEY.findall(data)


@contextlib.contextmanager
def terminal_keys() -> Iterator[Callable[[], str]]:
    """A reader of the keys pressed, one at a time, for as long as the context lasts: standard
    input is put in cbreak mode (each key at once, not echoed; Ctrl-C still interrupts) for
    the whole time, so that keys pressed while a position is drawn are neither echoed nor
    lost, and is put back as it was at the end."""
    if sys.platform == "win32":
        import msvcrt

        def read_windows() -> str:
            key = msvcrt.getwch()
            if key in ("\x00", "\xe0"):  # an arrow or another special key: two characters
                key += msvcrt.getwch()
            return key

        yield read_windows
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    waiting: list[str] = []

    def read() -> str:
        while not waiting:
            data = os.read(fd, 64)
            if not data:
                raise EOFError
            waiting.extend(split_keys(data.decode(errors="replace")))
        return waiting.pop(0)

    tty.setcbreak(fd)
    try:
        yield read
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@dataclass
class Cursor:
    """Where the reader is in a record: the hand (its place in ``record.hands``) and how many
    of its moves are played (``0``: the deal; ``len(moves)``: the hand's end)."""

    record: GameRecord
    index: int = 0
    ply: int = 0

    @property
    def hand(self) -> HandRecord:
        return self.record.hands[self.index]

    def at_start(self) -> bool:
        return self.index == 0 and self.ply == 0

    def at_end(self) -> bool:
        return self.index == len(self.record.hands) - 1 and self.ply == len(self.hand.moves)

    def go(self, action: Action) -> None:
        """Move by ``action``; at either end of the record, stay there. The next move from a
        hand's end is the next hand's deal; the previous hand from the middle of a hand is
        that hand's deal (once more: the hand before)."""
        last = len(self.record.hands) - 1
        moves = len(self.hand.moves)
        if action == "next":
            if self.ply < moves:
                self.ply += 1
            elif self.index < last:
                self.index, self.ply = self.index + 1, 0
        elif action == "previous":
            if self.ply > 0:
                self.ply -= 1
            elif self.index > 0:
                self.index -= 1
                self.ply = len(self.hand.moves)
        elif action == "next_hand":
            if self.index < last:
                self.index, self.ply = self.index + 1, 0
            else:
                self.ply = moves
        elif action == "previous_hand":
            if self.ply > 0:
                self.ply = 0
            elif self.index > 0:
                self.index -= 1
        elif action == "first":
            self.index, self.ply = 0, 0
        elif action == "last":
            self.index = last
            self.ply = len(self.hand.moves)

    def game(self) -> Game:
        """The game at this position."""
        return self.record.game_at(self.hand.number, self.ply)


def _cards(cards: Sequence[int], *, played: bool = False) -> Text:
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(" ")
        label = played_label(card) if played else card_label(card)
        text.append(label, "red" if is_red(card) else "")
    return text


def _end_of(hand: HandRecord, names: Sequence[str]) -> str:
    """How ``hand`` ended, in a line like ``rummy500 replay``'s own."""
    result = hand.result
    assert result is not None
    scores = ", ".join(f"{names[s]} {score:+d}" for s, score in enumerate(result.scores))
    if result.capped:
        how = _("automatic play's move cap: scored as if the stock ran out")
    elif result.out is not None:
        how = _("{seat} went out").format(seat=names[result.out])
    else:
        how = _("the stock ran out")
    return _("hand {n}: {scores} ({how})").format(n=hand.number, scores=scores, how=how)


def position_view(
    record: GameRecord,
    index: int,
    ply: int,
    names: Sequence[str] | None = None,
    *,
    error: str | None = None,
    game: Game | None = None,
    before: Game | None = None,
) -> Text:
    """The position of hand ``record.hands[index]`` after ``ply`` of its moves, in words:
    every hand face up (a record shows them all), the table, the last move and the next, and
    at the hand's end how it ended (and ``error``, a bad line the record stops at, at the
    record's end). ``game`` and ``before`` are the games of this position and the one before
    it, when the caller has them (else they are replayed)."""
    hand = record.hands[index]
    moves = hand.moves
    names = list(names) if names is not None else [seat_str(s) for s in range(record.players)]
    if game is None:
        game = record.game_at(hand.number, ply)
    text = Text()
    if ply == 0:
        title = _("Hand {n}: the deal").format(n=hand.number)
    else:
        title = _("Hand {n}, after move {k} of {total}").format(
            n=hand.number, k=ply, total=len(moves)
        )
    text.append(title + "\n", "bold")
    if ply:
        if before is None:
            before = record.game_at(hand.number, ply - 1)
        last = describe_move(moves[ply - 1], before, game, names)
        text.append(_("Last move: {move}").format(move=last))
        text.append(f"  {moves[ply - 1]}\n", "dim")
    if ply < len(moves):
        coming = describe_move(moves[ply], game, None, names)
        text.append(_("Next move: {move}").format(move=coming), "bold")
        text.append(f"  {moves[ply]}\n", "dim")
    elif hand.result is not None:
        text.append(_end_of(hand, names) + "\n", "bold")
    elif error is None or index < len(record.hands) - 1:
        text.append(_("The record stops here, before the end of the hand.") + "\n", "bold")
    text.append(
        ngettext("Stock: {n} card", "Stock: {n} cards", game.stock_size).format(n=game.stock_size)
        + "\n"
    )
    table = game.observation(0)  # the public cards: the same for every seat
    pile = table.discard_pile
    if pile:
        text.append(_("Discard pile, top last: "))
        text.append_text(_cards(pile))
    else:
        text.append(_("The discard pile is empty."))
    text.append("\n")
    melds = table.melds
    if melds:
        text.append(_("Melds on the table:") + "\n")
        for meld in melds:
            text.append(f"  {meld.number}. ")
            text.append_text(_cards(meld.cards, played=True))
            who = ", ".join(dict.fromkeys(names[s] for s in meld.played_by))
            text.append(f" ({who})\n", "dim")
    else:
        text.append(_("No melds on the table yet.") + "\n")
    for seat in range(record.players):
        cards = game.hand(seat)
        mark = "▶ " if seat == game.to_act else "  "
        text.append(mark, "bold")
        text.append(
            ngettext("{name} ({n} card): ", "{name} ({n} cards): ", len(cards)).format(
                name=names[seat], n=len(cards)
            ),
            "bold" if seat == game.to_act else "",
        )
        text.append_text(_cards(cards))
        text.append("\n")
    totals = ", ".join(f"{names[s]} {t}" for s, t in enumerate(game.totals))
    text.append(_("totals: {totals}").format(totals=totals) + "\n")
    if index == len(record.hands) - 1 and ply == len(moves):
        if record.winner is not None:
            text.append(_("winner: {seat}").format(seat=names[record.winner]) + "\n", "bold")
        if error is not None:
            text.append(error + "\n", "bold red")
    return text


def _keys_help() -> Text:
    return Text(
        _(
            "→ next move · ← previous move · ↓ next hand · ↑ previous hand · "
            "Home first · End last · q quit"
        ),
        "dim",
    )


def step(
    record: GameRecord,
    names: Sequence[str] | None = None,
    *,
    console: Console,
    read_key: Callable[[], str],
    error: str | None = None,
) -> None:
    """Step through ``record`` with the keys of :data:`KEYS`, drawing each position on
    ``console``'s alternate screen, until ``q`` (or Esc, Ctrl-C, the end of the input, or the
    keys running out). ``read_key`` returns one key as the terminal sends it
    (:func:`terminal_keys`)."""
    if not record.hands:
        return
    cursor = Cursor(record)
    with console.screen(hide_cursor=True) as screen:
        while True:
            view = position_view(record, cursor.index, cursor.ply, names, error=error)
            screen.update(Group(view, _keys_help()))
            try:
                key = read_key()
            except (KeyboardInterrupt, EOFError, StopIteration):
                return
            action = KEYS.get(key)
            if action == "quit":
                return
            if action is not None:
                cursor.go(action)


def print_positions(
    record: GameRecord,
    names: Sequence[str] | None = None,
    *,
    console: Console,
    error: str | None = None,
) -> None:
    """Every position of ``record``, one after another (where there is no terminal to step
    in: ``rummy500 replay --step`` with its input or output not a terminal)."""
    index = -1
    before: Game | None = None
    for position in record.positions():
        if position.ply == 0:
            index += 1
        if index or position.ply:
            console.print(Rule(style="dim"))
        view = position_view(
            record, index, position.ply, names, error=error, game=position.game, before=before
        )
        console.print(view, end="", soft_wrap=True)
        before = position.game
