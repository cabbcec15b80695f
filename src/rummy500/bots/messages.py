"""The bot protocol's messages as pydantic models: the source of its JSON Schemas.

Each model is one message of ``docs/bot-protocol.md`` (version 1.1), field for field.
:func:`json_schemas` turns them into the files of ``docs/schemas/bot/``
(``python -m rummy500.schemas`` writes them); :func:`controller_message` and
:func:`bot_answer` check a message against them.

The controller's messages forbid fields they do not list, so that the schemas say exactly what
this version sends (a later version may add fields: a bot ignores those it does not know). The
bot's answers allow any other field: the controller ignores them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "MODELS",
    "Act",
    "ActAnswer",
    "GameOver",
    "HandOver",
    "Hello",
    "HelloAnswer",
    "Meld",
    "Quit",
    "bot_answer",
    "controller_message",
    "json_schemas",
]

Seat = Annotated[str, Field(pattern=r"^P[1-8]$", description="A seat, P1 … P8.")]
Card = Annotated[
    str,
    Field(
        pattern=r"^(?:[A2-9TJQK][CDHS]|JK)$",
        description="A card: rank (A 2 … 9 T J Q K) then suit (C D H S), or JK for a joker.",
    ),
]
PlayedCard = Annotated[
    str,
    Field(
        pattern=r"^(?:[A2-9TJQK][CDHS]|JK=[A2-9TJQK][CDHS]?)$",
        description="A card on the table: a card, or a joker with what it stands for "
        "(JK=8H in a run, JK=9 in a group).",
    ),
]
MoveText = Annotated[
    str,
    Field(
        min_length=1,
        description="A move in notation, seat first: 'P2 draw', 'P2 meld 4H 5H 6H'.",
    ),
]
Points = Annotated[int, Field(description="Points (may be negative).")]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class Hello(_Message):
    """The controller's first message. The bot answers with a HelloAnswer."""

    type: Literal["hello"]
    protocol: float = Field(
        description="The protocol version the controller speaks: 1.1 (a version 1 "
        "controller said 1)."
    )


class HelloAnswer(_Answer):
    """The bot's answer to hello."""

    name: str = Field(description="The bot's name, as reports show it.")
    author: str = Field(default="", description="Who wrote it (may be empty).")


class Meld(_Message):
    """A meld on the table."""

    number: int = Field(ge=1, description="The meld's number: 1, 2, … in the order made.")
    run: bool = Field(description="true for a run, false for a group.")
    cards: list[PlayedCard] = Field(
        min_length=3, description="Its cards, in run order (lowest first) for a run."
    )
    played_by: list[Seat] = Field(description="The seat that played each card, card by card.")


class Act(_Message):
    """The controller asks the bot for a move: everything its seat may know."""

    type: Literal["act"]
    seat: Seat = Field(description="The bot's seat.")
    players: int = Field(ge=2, le=8, description="The number of seats.")
    rules: str = Field(
        description="Every rule option written out, name=value, as in a record's rules: line."
    )
    hand_number: int = Field(ge=1, description="Which hand of the game: 1, 2, …")
    dealer: Seat = Field(description="The dealer of this hand.")
    hand: list[Card] = Field(description="The bot's cards.")
    discard_pile: list[Card] = Field(description="The whole discard pile, bottom first.")
    stock_size: int = Field(ge=0, description="Cards left in the stock.")
    melds: list[Meld] = Field(description="Every meld on the table, in meld-number order.")
    hand_sizes: dict[Seat, int] = Field(description="Cards in each seat's hand.")
    known_cards: dict[Seat, list[Card]] = Field(
        description="For every seat, the cards everybody knows it holds (taken from the "
        "discard pile and not played yet)."
    )
    totals: dict[Seat, Points] = Field(description="Running totals before this hand.")
    history: list[MoveText] = Field(
        description="This hand's moves so far, public view: a draw never shows the card."
    )
    must_use: Card | None = Field(
        description="The card taken from the discard pile that must be melded or laid off "
        "before anything else, or null."
    )
    phase: Literal["draw", "play", "call", "float"] = Field(description="What is asked.")
    legal: list[MoveText] = Field(min_length=1, description="Every legal move now.")
    deadline_ms: int = Field(ge=1, description="Milliseconds the bot has to answer.")
    id: int = Field(ge=1, description="The request's number, increasing (since 1.1).")


class ActAnswer(_Answer):
    """The bot's move."""

    move: MoveText
    id: int | None = Field(
        default=None, description="The id of the act it answers (since 1.1; may be left out)."
    )


class HandOver(_Message):
    """The hand has ended: every hand is shown. No answer."""

    type: Literal["hand_over"]
    scores: dict[Seat, Points] = Field(description="Each seat's score for the hand.")
    totals: dict[Seat, Points] = Field(description="Running totals after the hand.")
    hands: dict[Seat, list[Card]] = Field(description="The cards left in each hand.")


class GameOver(_Message):
    """The game has ended. No answer; another game may follow."""

    type: Literal["game_over"]
    totals: dict[Seat, Points] = Field(description="Final totals.")
    winner: Seat | None = Field(description="The winner, or null for a game stopped without one.")


class Quit(_Message):
    """The bot must exit."""

    type: Literal["quit"]


#: Schema file name (under ``docs/schemas/``) -> model, in the order of the protocol's page.
MODELS: dict[str, type[BaseModel]] = {
    "bot/hello.schema.json": Hello,
    "bot/hello-answer.schema.json": HelloAnswer,
    "bot/act.schema.json": Act,
    "bot/act-answer.schema.json": ActAnswer,
    "bot/hand-over.schema.json": HandOver,
    "bot/game-over.schema.json": GameOver,
    "bot/quit.schema.json": Quit,
}

_CONTROLLER: TypeAdapter[Hello | Act | HandOver | GameOver | Quit] = TypeAdapter(
    Annotated[Hello | Act | HandOver | GameOver | Quit, Field(discriminator="type")]
)


def controller_message(data: Any) -> Hello | Act | HandOver | GameOver | Quit:
    """``data`` (a decoded line) as the controller's message it is; raises
    :class:`pydantic.ValidationError` if it is none."""
    return _CONTROLLER.validate_python(data)


def bot_answer(data: Any, *, hello: bool = False) -> HelloAnswer | ActAnswer:
    """``data`` as a bot's answer (to hello with ``hello``, else to act)."""
    model = HelloAnswer if hello else ActAnswer
    return model.model_validate(data)


def json_schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema (draft 2020-12) of every message."""
    schemas = {}
    for name, model in MODELS.items():
        schema = model.model_json_schema()
        schemas[name] = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return schemas
