"""What clients send the server, as pydantic models: the lobby's requests (HTTP+JSON, with the
replies that answer them) and what a client may send on a table's WebSocket.

What the server sends on the WebSocket is built in :mod:`rummy500.server.outgoing` and described
in :mod:`rummy500.server.wire` and ``docs/protocol.md``.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from rummy500.bots import LEVELS
from rummy500.i18n import _
from rummy500.server.names import (
    MAX_NAME_COLUMNS,
    grapheme_width,
    graphemes,
    reads_as_seat_label,
)

__all__ = [
    "MAX_NAME_CHARS",
    "AuthMessage",
    "ChatMessage",
    "ClientMessage",
    "HintMessage",
    "CreateReply",
    "CreateTable",
    "ErrorDetail",
    "Unprocessable",
    "JoinReply",
    "JoinRequest",
    "LanguageMessage",
    "MoveMessage",
    "PingMessage",
    "ReadyMessage",
    "RecordMessage",
    "ResyncMessage",
    "RulesSpec",
    "SeatInfo",
    "SeatSpec",
    "TableInfo",
    "TableList",
    "UndoMessage",
    "WatchMessage",
    "clean_text",
    "describe_errors",
    "name_key",
    "normalize_name",
    "parse_client_message",
]

MAX_NAME_CHARS = 24
#: What a name may be as sent, before spaces and invisible characters are taken out of it.
MAX_NAME_INPUT = 64
SEAT_PATTERN = r"^[Pp][1-8]$"


#: Characters that reorder the text around them (a name could make another look reversed):
#: embeddings, overrides, isolates and the direction marks.
_BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
#: Letters and symbols that print as nothing (not format characters, so listed by hand).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
_ZWJ = "\u200d"
#: Combining marks allowed on one character (more stack into unreadable towers).
MAX_MARKS = 4


def _drawn_with_zwj(before: str, after: str) -> bool:
    """Whether a zero-width joiner between these joins emoji (👩‍👩‍👧), where it belongs."""
    joined = unicodedata.category(before), unicodedata.category(after)
    return joined[0] in ("So", "Sk", "Mn") and joined[1] in ("So", "Sk")


def clean_text(text: str, what: str) -> str:
    """``text`` trimmed, without invisible characters (zero-width spaces and joiners, other
    format characters, blank letters; a joiner inside an emoji stays) and on one line (the
    line and paragraph separators U+2028 and U+2029 become spaces); refused if it holds
    control characters, direction marks or overrides, or a tower of combining marks.

    Names and chat are plain text: nothing in them is interpreted, by the server or (it must
    not be) by a client."""
    kept: list[str] = []
    marks = 0
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch in _BIDI_CONTROLS:
            raise ValueError(
                _(
                    "{what} may not contain marks that change the direction of text (U+{code:04X})"
                ).format(what=what, code=ord(ch))
            )
        if category in ("Cc", "Cs"):
            raise ValueError(
                _("{what} may not contain control characters (U+{code:04X})").format(
                    what=what, code=ord(ch)
                )
            )
        if ch == _ZWJ:
            if kept and i + 1 < len(text) and _drawn_with_zwj(kept[-1], text[i + 1]):
                kept.append(ch)
            continue
        if category in ("Cf", "Co", "Cn") or ch in _BLANKS:
            continue
        if category in ("Zl", "Zp"):  # a line break that is not a control character
            kept.append(" ")
            marks = 0
            continue
        if category in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                raise ValueError(
                    _("{what} may not stack more than {n} accents on one letter").format(
                        what=what, n=MAX_MARKS
                    )
                )
        else:
            marks = 0
        kept.append(ch)
    return "".join(kept).strip()


def normalize_name(name: str) -> str:
    """A player's name as it is kept and shown: NFKC (full-width and other compatibility
    forms folded: ``Ａｎｎ`` is ``Ann``), invisible characters removed, spaces collapsed to
    one; refused when empty, longer than :data:`MAX_NAME_CHARS` characters as a reader counts
    them (grapheme clusters), wider than :data:`~rummy500.server.names.MAX_NAME_COLUMNS`
    columns, or when it reads as a seat's label (``P2``: :mod:`rummy500.server.names`)."""
    spaced = "".join(" " if ch in "\t\n\r\v\f" else ch for ch in name)
    text = clean_text(unicodedata.normalize("NFKC", spaced), _("name"))
    text = " ".join(text.split())
    if not text:
        raise ValueError(_("the name is empty"))
    clusters = graphemes(text)
    # and in code points (what is stored), however few clusters NFKC made them into
    if len(clusters) > MAX_NAME_CHARS or len(text) > MAX_NAME_INPUT:
        limit = MAX_NAME_CHARS if len(clusters) > MAX_NAME_CHARS else MAX_NAME_INPUT
        raise ValueError(
            _("a name is at most {limit} characters, not {n}").format(
                limit=limit, n=len(clusters) if limit == MAX_NAME_CHARS else len(text)
            )
        )
    widths = [grapheme_width(cluster) for cluster in clusters]
    if sum(widths) > MAX_NAME_COLUMNS:
        widest = clusters[widths.index(max(widths))]
        raise ValueError(
            _(
                "the name is too wide to show: {width} columns, at most {limit} "
                "({char} alone takes {n})"
            ).format(width=sum(widths), limit=MAX_NAME_COLUMNS, char=widest, n=max(widths))
        )
    if reads_as_seat_label(text):
        raise ValueError(
            _(
                "“{name}” reads as a seat's label (such as P2, a free seat or a computer "
                "player): choose another name"
            ).format(name=text)
        )
    return text


def name_key(name: str) -> str:
    """What two names at one table may not share: the name ignoring case (``casefold``)."""
    return unicodedata.normalize("NFKC", normalize_name(name).casefold())


#: A computer player's level: one of :data:`rummy500.bots.LEVELS` (a ``Literal`` built once from
#: that list, so the schema and the error messages name every level).
BotLevel = Literal[tuple(LEVELS)]  # type: ignore[valid-type]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_max_length=10_000)


# --- the lobby ---------------------------------------------------------------------------------


class SeatSpec(_Strict):
    """One seat of a new table: a person, or a computer player of a level."""

    kind: Literal["human", "bot"] = "human"
    level: BotLevel = Field("easy", description="The computer player's level (bots only).")


class RulesSpec(_Strict):
    """A rules preset and options written as in a record's ``rules:`` line."""

    preset: str | None = Field(
        None, max_length=20, description="standard, hoyle, 5-10-15, quick or no-jokers."
    )
    options: dict[Annotated[str, Field(max_length=20)], Annotated[str, Field(max_length=20)]] = (
        Field(
            default_factory=dict,
            max_length=10,
            description='Rule options by name, e.g. {"going-out": "float"}.',
        )
    )


class CreateTable(_Strict):
    """A new table. ``name`` seats its creator in the first person's seat at once."""

    seats: list[SeatSpec] = Field(min_length=2, max_length=8)
    rules: RulesSpec = Field(default_factory=lambda: RulesSpec(preset=None))
    target: int | float | None = Field(
        None, description="Target score, 1 to 100000 (the rules check it, wherever it is given)."
    )
    private: bool = Field(False, description="Private tables are not listed; join by invite.")
    name: str | None = Field(None, min_length=1, max_length=MAX_NAME_INPUT)
    call_seconds: float | None = Field(None, ge=0.05, le=60)
    turn_seconds: float | None = Field(None, ge=1, le=3600)
    away_seconds: float | None = Field(None, ge=0, le=3600)
    hand_pause: float | None = Field(None, ge=0, le=60)
    seed: int | None = Field(
        None, ge=0, lt=2**62, description="The deal's seed (only if the server allows seeds)."
    )

    @field_validator("target")
    @classmethod
    def _whole_target(cls, value: int | float | None) -> int | float | None:
        """A whole number written as ``300.0`` or ``1e20`` is that number (the rules judge it)."""
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str | None) -> str | None:
        return None if value is None else normalize_name(value)


class JoinRequest(_Strict):
    """Take a seat with just a name; ``seat`` picks one (the first free person's seat if not)."""

    name: str = Field(min_length=1, max_length=MAX_NAME_INPUT)
    seat: str | None = Field(None, pattern=SEAT_PATTERN)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        return normalize_name(value)


class SeatInfo(BaseModel):
    """A seat as anyone may see it."""

    seat: str
    kind: Literal["human", "bot"]
    level: str | None = Field(description="A computer player's level (null for a person's seat).")
    name: str | None = Field(
        description="The person's name, or the name the server gave a computer player (the "
        "same in every language); null for a free seat (and a computer seat of a table made "
        "before computer players had names)."
    )
    taken: bool = Field(
        description="Whether someone sits there: a person, or (always) the computer player."
    )
    left: bool = Field(
        False,
        description="A person gave this seat up during the game: a computer player plays it "
        "until someone joins to take it over.",
    )
    left_name: str | None = Field(
        None,
        description="The name of the person who gave this seat up during the game (also once "
        "it is over, so that the record and the review name the seat as the table did); null "
        "once someone took the seat over.",
    )


class TableInfo(BaseModel):
    """A table as anyone may see it (no card, no token)."""

    table_id: str
    invite_code: str
    invite_link: str
    status: Literal["waiting", "playing", "finished"]
    players: int
    seats: list[SeatInfo]
    rules: str
    private: bool
    call_seconds: float
    turn_seconds: float | None
    away_seconds: float
    hand_pause: float
    version: int
    created_at: float
    rematch_of: str | None
    rematch_id: str | None
    #: A rematch whose seats are kept for the players of the last game until then (Unix time).
    reserved_until: float | None = None
    ws_path: str
    #: The seats taken by accounts: each one's username (the table's own page only).
    accounts: dict[str, str] | None = None
    #: A rated game (quick pairing: no undo, no hints, no take-over).
    rated: bool = False
    #: A rated table's seats: each account's rating in the pool (``rating``, ``deviation``,
    #: ``games``, ``provisional``) and, once the game is rated, its ``change`` (the table's
    #: own page only).
    ratings: dict[str, dict[str, Any]] | None = None


class TableList(BaseModel):
    """A page of a table list."""

    tables: list[TableInfo]
    next_cursor: str | None = Field(
        None,
        description="Ask again with ?cursor= this for the next page; null on the last page.",
    )


class JoinReply(BaseModel):
    """A seat taken: the token is the only key to it; keep it secret."""

    table: TableInfo
    seat: str
    token: str


class CreateReply(BaseModel):
    """A new table, and the creator's seat and token when a name was given."""

    table: TableInfo
    seat: str | None = None
    token: str | None = None


class ErrorDetail(BaseModel):
    """One problem the request's schema found."""

    loc: list[str | int] = Field(description='Where: ["body", "seats", 1, "level"].')
    msg: str = Field(description="What.")


class Unprocessable(BaseModel):
    """Every ``422`` of the lobby: a rule or the schema refused the request."""

    detail: str = Field(description="One sentence naming the problem.")
    errors: list[ErrorDetail] = Field(
        description="What the schema found; empty when a rule refused the request."
    )


# --- the table's WebSocket: what a client sends ----------------------------------------------


#: The ``lang`` field of ``auth`` and ``watch``.
LANG_DESCRIPTION = (
    "The language the server's texts (errors, reasons, hints) are said in for this connection: "
    "a language code such as hu or hu-HU; one the server does not ship means English. "
    "Without it, the WebSocket request's Accept-Language. The record and the notation are "
    "the same in every language."
)


class AuthMessage(_Strict):
    """First message of a player: the seat token from joining. ``summary``: this client shows
    its player a summary between hands and says ``ready`` when they close it (the next deal
    waits for them, at most the server's ``--summary-wait``)."""

    type: Literal["auth"]
    token: str = Field(min_length=1, max_length=200)
    summary: bool = Field(
        False, description="This client shows a hand summary and sends ready when it is closed."
    )
    lang: str | None = Field(None, max_length=35, description=LANG_DESCRIPTION)


class WatchMessage(_Strict):
    """First message of a spectator."""

    type: Literal["watch"]
    lang: str | None = Field(None, max_length=35, description=LANG_DESCRIPTION)


class MoveMessage(_Strict):
    """A move in NOTATION.md notation; ``id`` comes back as ``ref`` on the reply. ``version``
    (optional) is the version the move was chosen at: a move that became illegal because the
    table moved on meanwhile is then refused as ``stale`` rather than ``illegal_move``."""

    type: Literal["move"]
    move: str = Field(min_length=1, max_length=200)
    id: Annotated[str, Field(max_length=64)] | int | None = None
    version: int | None = Field(None, ge=0)


class ChatMessage(_Strict):
    type: Literal["chat"]
    text: str = Field(min_length=1)


class UndoMessage(_Strict):
    """Take back the seat's last meld, lay-off or take from the discard pile of this turn (before
    its discard); ``id`` comes back as ``ref`` on the mover's update (or the error)."""

    type: Literal["undo"]
    id: Annotated[str, Field(max_length=64)] | int | None = None


class HintMessage(_Strict):
    """Ask what a strong computer player would play now (only the seat that must decide);
    ``id`` comes back as ``ref``."""

    type: Literal["hint"]
    id: Annotated[str, Field(max_length=64)] | int | None = None


class ReadyMessage(_Strict):
    """Between hands: the player has closed the summary of hand ``hand`` (the next hand is dealt
    once every connected person whose client shows a summary is ready, or after the server's
    ``--summary-wait``)."""

    type: Literal["ready"]
    hand: int = Field(ge=1, description="The number of the hand whose summary was closed.")


class ResyncMessage(_Strict):
    type: Literal["resync"]


class RecordMessage(_Strict):
    type: Literal["record"]


class PingMessage(_Strict):
    type: Literal["ping"]


class LanguageMessage(_Strict):
    """The client reads another language now (its player switched): the server's texts for this
    connection are said in it from now on, and a fresh ``state`` answers (merged like
    ``resync``'s). Nothing changes for the other clients, the game or its record."""

    type: Literal["language"]
    lang: str = Field(
        min_length=1,
        max_length=35,
        description="A language code such as hu or hu-HU; one the server does not ship means "
        "English (as at auth and watch).",
    )


ClientMessage = Annotated[
    AuthMessage
    | WatchMessage
    | MoveMessage
    | ChatMessage
    | UndoMessage
    | HintMessage
    | ReadyMessage
    | ResyncMessage
    | RecordMessage
    | PingMessage
    | LanguageMessage,
    Field(discriminator="type"),
]

_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def describe_errors(error: ValidationError) -> str:
    """The problems pydantic found, one ``where: what`` each, in a sentence."""
    parts = []
    for e in error.errors()[:5]:
        where = ".".join(str(x) for x in e["loc"]) or _("message")
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


def parse_client_message(text: str) -> ClientMessage:
    """Read one client message (JSON); raises :class:`ValueError` naming the problem."""
    try:
        return _CLIENT_MESSAGE.validate_json(text)
    except ValidationError as e:
        if any(err["type"] == "json_invalid" for err in e.errors()):
            raise ValueError(_("the message is not valid JSON")) from None
        raise ValueError(
            _("invalid message: {details}").format(details=describe_errors(e))
        ) from None
