"""The small widgets of the table: the hand, the discard pile, the stock, the melds, the players.

Each widget draws what it is given and turns clicks and keys into messages; none of them knows
the rules. Selection is shown by *raising* a card one line (and the cursor in reverse video), so
the table reads the same without colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.widget import Widget

from rummy500.engine import JOKER, MeldView
from rummy500.engine.reasons import card_label, played_label
from rummy500.i18n import N_, _, pgettext
from rummy500.words import is_red

__all__ = [
    "CardRow",
    "Line",
    "HandView",
    "MeldsView",
    "PileView",
    "PlayerLine",
    "PlayersView",
    "StockView",
]

CELL = 4  # columns per card: a mark or space, then the rank right-aligned in 2, then the suit


def sort_by_rank(card: int) -> tuple[int, int]:
    """Rank then suit, jokers last."""
    return (13, 0) if card == JOKER else (card % 13, card // 13)


def sort_by_suit(card: int) -> tuple[int, int]:
    """Suit then rank, jokers last."""
    return (4, 0) if card == JOKER else (card // 13, card % 13)


class Line(Widget):
    """A line or two of text whose height never changes (the title, the status line): updating
    it repaints without laying the screen out again."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.content: str | Text = ""

    def update(self, content: str | Text) -> None:
        if content != self.content:
            self.content = content
            self.refresh()

    def render(self) -> str | Text:
        return self.content


class CardRow(Widget):
    """Cards in rows of cells that wrap to the width; a card may be raised a line.

    Subclasses say how many lines a row of cards takes (:attr:`LINES`) and what each card's
    cell shows.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "cards--red",
        "cards--joker",
        "cards--cursor",
        "cards--mark",
        "cards--dim",
    }
    DEFAULT_CSS = """
    CardRow { height: auto; }
    """
    LINES = 2

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.cards: list[int] = []
        self.cursor = 0

    # --- geometry -----------------------------------------------------------------------------

    def per_row(self, width: int | None = None) -> int:
        width = self.content_size.width if width is None else width
        return max(1, width // CELL)

    def rows(self, width: int | None = None) -> int:
        return max(1, -(-len(self.cards) // self.per_row(width)))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows(width) * self.LINES

    def index_at(self, event: events.MouseEvent) -> int | None:
        """The card under the mouse, or ``None``."""
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        row, col = offset.y // self.LINES, offset.x // CELL
        per_row = self.per_row()
        if col >= per_row:
            return None
        index = row * per_row + col
        return index if 0 <= index < len(self.cards) else None

    # --- drawing ------------------------------------------------------------------------------

    def card_style(self, card: int) -> Style:
        if card == JOKER:
            return self.get_component_rich_style("cards--joker")
        if is_red(card):
            return self.get_component_rich_style("cards--red")
        return Style()

    def cell(self, index: int) -> Text:
        """The 4 columns of card ``index``: a mark, the rank right-aligned, the suit."""
        card = self.cards[index]
        label = card_label(card)
        text = Text(" ")
        text.append(label.rjust(3), self.card_style(card))
        if index == self.cursor and self.show_cursor():
            text.stylize(self.get_component_rich_style("cards--cursor"), 1)
        return text

    def show_cursor(self) -> bool:
        return True

    def raised(self, index: int) -> bool:
        return False

    def mark_line(self, indices: Sequence[int]) -> Text | None:
        """An optional third line under a row of cards."""
        return None

    def render(self) -> Text:
        if not self.cards:
            return Text(self.empty_text(), style=self.get_component_rich_style("cards--dim"))
        per_row = self.per_row()
        lines: list[Text] = []
        blank = Text(" " * CELL)
        for start in range(0, len(self.cards), per_row):
            indices = range(start, min(start + per_row, len(self.cards)))
            top, base = Text(), Text()
            for i in indices:
                if self.raised(i):
                    top.append_text(self.cell(i))
                    base.append_text(blank)
                else:
                    top.append_text(blank)
                    base.append_text(self.cell(i))
            lines.extend([top, base])
            marks = self.mark_line(list(indices))
            if marks is not None:
                lines.append(marks)
        return Text("\n").join(lines)

    def empty_text(self) -> str:
        return ""


class HandView(CardRow, can_focus=True):
    """The person's hand: ←/→ move the cursor, space picks a card (raises it), a click picks
    the card under the mouse. Cards that could be melded now have a dot under them."""

    LINES = 3
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", N_("Left"), show=False),
        Binding("right", "move(1)", N_("Right"), show=False),
        Binding("home", "move(-100)", show=False),
        Binding("end", "move(100)", show=False),
        Binding("space", "pick", N_("Pick"), key_display="␣"),
    ]

    class Picked(Message):
        """The selection changed."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.selected: set[int] = set()
        self.meldable: set[int] = set()
        self.by_rank = False
        #: Whether the raised cards are a hint's (the person has not picked since).
        self.hinted = False

    def set_cards(self, hand: Iterable[int], meldable: Iterable[int] = ()) -> None:
        """Show ``hand`` (in the current sort order); the selection survives if the hand is the
        same, and the cursor goes to a card that has just arrived."""
        old = self.cards
        cards = sorted(hand, key=sort_by_rank if self.by_rank else sort_by_suit)
        self.meldable = set(meldable)
        if cards != old:
            new = list(cards)
            for c in old:
                if c in new:
                    new.remove(c)
            rows = self.rows()
            self.selected = set()
            self.hinted = False
            self.cards = cards
            if new and old:
                self.cursor = cards.index(new[0])
            self.cursor = min(self.cursor, max(len(cards) - 1, 0))
            self.refresh(layout=self.rows() != rows)
        else:
            self.refresh()

    def resort(self, by_rank: bool) -> None:
        """Sort by rank or by suit, keeping the picked cards picked."""
        picked = [self.cards[i] for i in self.selected]
        at = self.cards[self.cursor] if self.cards else None
        self.by_rank = by_rank
        self.cards = sorted(self.cards, key=sort_by_rank if by_rank else sort_by_suit)
        self.selected = set()
        for c in picked:
            for i, d in enumerate(self.cards):
                if d == c and i not in self.selected:
                    self.selected.add(i)
                    break
        if at is not None:
            self.cursor = self.cards.index(at)
        self.refresh()

    def picked_cards(self) -> list[int]:
        return [self.cards[i] for i in sorted(self.selected)]

    def cursor_card(self) -> int | None:
        return self.cards[self.cursor] if self.cards else None

    def pick_cards(self, cards: Iterable[int], *, hinted: bool = False) -> None:
        """Pick exactly these cards (a hint shows its cards this way: ``hinted``; a hint of one
        card also brings the cursor to it)."""
        self.selected = set()
        for c in cards:
            for i, d in enumerate(self.cards):
                if d == c and i not in self.selected:
                    self.selected.add(i)
                    break
        self.hinted = hinted
        if hinted and len(self.selected) == 1:
            self.cursor = next(iter(self.selected))
        self.refresh()
        self.post_message(self.Picked())

    def clear_picks(self) -> None:
        self.hinted = False
        if self.selected:
            self.selected = set()
            self.refresh()
            self.post_message(self.Picked())

    def raised(self, index: int) -> bool:
        return index in self.selected

    def mark_line(self, indices: Sequence[int]) -> Text:
        text = Text()
        style = self.get_component_rich_style("cards--mark")
        for i in indices:
            text.append("   ·" if self.cards[i] in self.meldable else "    ", style)
        return text

    def empty_text(self) -> str:
        return _("(no cards)")

    def action_move(self, step: int) -> None:
        if self.cards:
            self.cursor = max(0, min(len(self.cards) - 1, self.cursor + step))
            self.refresh()

    def action_pick(self) -> None:
        if not self.cards:
            return
        self.hinted = False
        self.selected ^= {self.cursor}
        self.refresh()
        self.post_message(self.Picked())

    def on_click(self, event: events.Click) -> None:
        index = self.index_at(event)
        if index is None:
            return
        self.cursor = index
        self.hinted = False
        self.selected ^= {index}
        self.refresh()
        self.post_message(self.Picked())


class PileView(CardRow, can_focus=True):
    """The discard pile, bottom first and top last, every card visible. ←/→ choose how deep to
    take (Home: the deepest card, End: the top one): the cards that would be taken are raised.
    Enter or a double click takes them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(1)", show=False),
        Binding("right", "move(-1)", show=False),
        Binding("home", "move(1000)", show=False),
        Binding("end", "move(-1000)", show=False),
        Binding("enter", "take", N_("Take")),
    ]

    class TakeRequested(Message):
        """The person asks to take the pile down to the chosen card."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.depth = 1

    @property
    def chosen(self) -> int:
        """Index of the deepest card chosen."""
        return len(self.cards) - self.depth

    def set_cards(self, pile: Sequence[int]) -> None:
        if list(pile) != self.cards:
            rows = self.rows()
            self.cards = list(pile)
            self.depth = 1
            self.refresh(layout=self.rows() != rows)
        self.cursor = self.chosen

    def raised(self, index: int) -> bool:
        return index >= self.chosen

    def show_cursor(self) -> bool:
        return self.has_focus

    def empty_text(self) -> str:
        return _("(empty)")

    def action_move(self, step: int) -> None:
        if self.cards:
            self.depth = max(1, min(len(self.cards), self.depth + step))
            self.cursor = self.chosen
            self.refresh()

    def action_take(self) -> None:
        self.post_message(self.TakeRequested())

    def on_click(self, event: events.Click) -> None:
        index = self.index_at(event)
        if index is None:
            return
        self.depth = len(self.cards) - index
        self.cursor = index
        self.refresh()
        if event.chain >= 2:
            self.post_message(self.TakeRequested())


class StockView(Widget):
    """The face-down stock and how many cards are left in it; a click draws."""

    DEFAULT_CSS = """
    StockView { width: 8; height: 2; }
    """

    class DrawRequested(Message):
        """The person asks to draw from the stock."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = 0

    def set_count(self, count: int) -> None:
        if count != self.count:
            self.count = count
            self.refresh()

    def render(self) -> Text:
        return Text(_("Stock") + "\n" + f" [{self.count:>2}]")

    def on_click(self, event: events.Click) -> None:
        self.post_message(self.DrawRequested())


class MeldsView(Widget, can_focus=True):
    """Every meld on the table, numbered, with who played which cards: ``#2 Ada: 5♦ *6♦ 7♦ +
    You: 8♦``. ↑/↓ (or a click) choose a meld to lay off on; Enter lays the picked card off."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "melds--red",
        "melds--joker",
        "melds--cursor",
        "melds--dim",
    }
    DEFAULT_CSS = """
    MeldsView { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("enter", "lay_off", N_("Lay off here")),
    ]

    class Chosen(Message):
        """A meld was chosen (``lay_off``: the person asks to lay off on it)."""

        def __init__(self, number: int, lay_off: bool) -> None:
            super().__init__()
            self.number = number
            self.lay_off = lay_off

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.melds: list[MeldView] = []
        self.names: list[str] = []
        self.cursor = 0
        self._line_melds: list[int] = []

    def set_melds(self, melds: Sequence[MeldView], names: Sequence[str]) -> None:
        if list(melds) == self.melds and list(names) == self.names:
            return
        lines = len(self._lines(self.content_size.width)[0])
        if len(melds) < len(self.melds):
            self.cursor = 0
        self.melds = list(melds)
        self.names = list(names)
        self.cursor = min(self.cursor, max(len(self.melds) - 1, 0))
        self.refresh(layout=len(self._lines(self.content_size.width)[0]) != lines)

    def _card_style(self, played: int) -> Style:
        if played >= 100:
            return self.get_component_rich_style("melds--joker")
        if is_red(played):
            return self.get_component_rich_style("melds--red")
        return Style()

    def _tokens(self, index: int, meld: MeldView) -> list[Text]:
        """The words of one meld: its number, then each owner's name and cards."""
        tokens = [Text(f"#{meld.number}")]
        owner = None
        for played, seat in zip(meld.cards, meld.played_by, strict=True):
            if seat != owner:
                if owner is not None:
                    tokens.append(Text("+"))
                tokens.append(Text(self.names[seat] + ":", style="italic"))
                owner = seat
            tokens.append(Text(played_label(played), style=self._card_style(played)))
        return tokens

    def _lines(self, width: int) -> tuple[list[Text], list[int]]:
        lines: list[Text] = []
        owners: list[int] = []
        width = max(width, 10)
        for index, meld in enumerate(self.melds):
            line = Text("▶ " if index == self.cursor and self.has_focus else "  ")
            for token in self._tokens(index, meld):
                if line.cell_len + 1 + token.cell_len > width and line.cell_len > 4:
                    lines.append(line)
                    owners.append(index)
                    line = Text("    ")
                elif line.cell_len > 2:
                    line.append(" ")
                line.append_text(token)
            lines.append(line)
            owners.append(index)
        return lines, owners

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._lines(width)[0]))

    def render(self) -> Text:
        if not self.melds:
            return Text(_("(no melds yet)"), style=self.get_component_rich_style("melds--dim"))
        lines, owners = self._lines(self.content_size.width)
        self._line_melds = owners
        cursor = self.get_component_rich_style("melds--cursor")
        if self.has_focus:
            for line, owner in zip(lines, owners, strict=True):
                if owner == self.cursor:
                    line.stylize(cursor)
        return Text("\n").join(lines)

    def _scroll_to_cursor(self) -> None:
        lines = [i for i, m in enumerate(self._line_melds) if m == self.cursor]
        if lines and self.parent is not None:
            region = Region(0, lines[0], self.size.width, len(lines))
            self.parent.scroll_to_region(region, animate=False)  # type: ignore[attr-defined]

    def action_move(self, step: int) -> None:
        if self.melds:
            self.cursor = max(0, min(len(self.melds) - 1, self.cursor + step))
            self.refresh()
            self._scroll_to_cursor()
            self.post_message(self.Chosen(self.melds[self.cursor].number, False))

    def action_lay_off(self) -> None:
        if self.melds:
            self.post_message(self.Chosen(self.melds[self.cursor].number, True))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.melds or offset.y >= len(self._line_melds):
            return
        self.cursor = self._line_melds[offset.y]
        self.refresh()
        self.post_message(self.Chosen(self.melds[self.cursor].number, True))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


@dataclass(frozen=True)
class PlayerLine:
    """One line of the players panel."""

    name: str
    level: str | None
    cards: int
    total: int
    to_act: bool
    dealer: bool
    hand: int = 0  # points melded and laid off in this hand so far


class PlayersView(Widget):
    """Each player: a ▶ for whoever acts (else · for the dealer), name and level, cards in hand,
    points melded and laid off in this hand so far, and running total."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"players--acting", "players--dim"}
    DEFAULT_CSS = """
    PlayersView { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.players: list[PlayerLine] = []

    def set_players(self, players: Sequence[PlayerLine]) -> None:
        if list(players) == self.players:
            return
        resize = len(players) != len(self.players)
        self.players = list(players)
        self.refresh(layout=resize)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.players) + 1

    def render(self) -> Text:
        width = max(self.content_size.width, 20)
        name_width = width - 1 - 3 - 5 - 5
        # "hand": this hand's points (the word has a context: elsewhere it is a hand's number)
        right = " ".join([_("cards"), pgettext("points this hand", "hand"), _("total")])
        left = " " + _("player")
        # widths in terminal cells, not characters: Lao's vowel and tone marks take none
        if cell_len(left) + cell_len(right) > width:
            left = ""
        header = Text(
            set_cell_size(left, width - cell_len(right)) + right,
            style=self.get_component_rich_style("players--dim"),
        )
        lines = [header]
        for p in self.players:
            marker = "▶" if p.to_act else "·" if p.dealer else " "
            who = f"{p.name} ({p.level})" if p.level else p.name
            if cell_len(who) > name_width:
                who = p.name
            who = set_cell_size(who, name_width)
            line = Text(f"{marker}{who}{p.cards:>3}{p.hand:>5}{p.total:>5}")
            if p.to_act:
                line.stylize(self.get_component_rich_style("players--acting"))
            lines.append(line)
        return Text("\n").join(lines)
