"""The lobby over HTTP + JSON: create a table, list open tables, join, leave, rematch.

No accounts: joining a seat with a name returns the seat's token, the only key to it. Actions
on a seat (leave, rematch) carry the token as ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import json
import secrets
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from rummy500.bots import LEVEL_NAMES, LEVELS
from rummy500.engine import PRESETS, InvalidRules, NotationError, Rules, parse_seat, seat_str
from rummy500.engine.rules import (
    OPTION_HELP,
    OPTION_WORDS,
    PRESET_HELP,
    PRESET_NAMES,
    VALUE_WORDS,
    option_choices,
)
from rummy500.i18n import _, current_language, use_language
from rummy500.server.accounts import CurrentAccount
from rummy500.server.client_messages import (
    CreateReply,
    CreateTable,
    JoinReply,
    JoinRequest,
    SeatInfo,
    TableInfo,
    TableList,
    Unprocessable,
)
from rummy500.server.config import BOT_LEVELS, LEVEL_HELP, ServerConfig
from rummy500.server.events import rebuild_game
from rummy500.server.limits import client_address
from rummy500.server.ratings import abandon, table_ratings
from rummy500.server.seating import computer_names
from rummy500.server.storage import (
    Account,
    ListKey,
    SeatError,
    TableRecord,
    canonical_invite,
    creator_key,
    format_invite,
    hash_token,
    new_token,
)
from rummy500.server.tables import TableHub
from rummy500.server.views import record_comment

__all__ = ["router", "rules_catalog_data", "table_info"]

router = APIRouter(
    prefix="/api",
    tags=["lobby"],
    responses={422: {"model": Unprocessable, "description": "A rule or the schema refused it."}},
)
bearer = HTTPBearer(auto_error=False, description="The seat token returned when joining.")
JSON = "application/json"


def _hub(request: Request) -> TableHub:
    hub: TableHub = request.app.state.hub
    return hub


Hub = Annotated[TableHub, Depends(_hub)]
Token = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def _public_url(request: Request) -> str:
    """Where links point: ``--public-url``, never the request's ``Host`` (which the client
    chooses); without it links are relative to the page that shows them."""
    config: ServerConfig = request.app.state.config
    return (config.public_url or "").rstrip("/")


PublicUrl = Annotated[str, Depends(_public_url)]


def table_info(record: TableRecord, public_url: str) -> TableInfo:
    """A table as anyone may see it; links start with ``public_url`` ("" for relative)."""
    code = format_invite(record.invite_code)
    return TableInfo(
        table_id=record.id,
        invite_code=code,
        invite_link=f"{public_url}/?invite={code}",
        status=record.status,  # type: ignore[arg-type]
        players=record.players,
        seats=[
            SeatInfo(
                seat=s.label,
                kind=s.kind,  # type: ignore[arg-type]
                level=s.level,
                name=s.name,
                taken=s.taken or s.kind == "bot",  # by its computer player
                # a free person's seat of a game on: given up, played by the computer
                left=record.status == "playing" and s.kind == "human" and not s.taken,
                left_name=s.left_name,
            )
            for s in record.seats
        ],
        rules=record.rules,
        private=record.private,
        call_seconds=record.call_seconds,
        turn_seconds=record.turn_seconds,
        away_seconds=record.away_seconds,
        hand_pause=record.hand_pause,
        version=record.version,
        created_at=record.created_at,
        rematch_of=record.rematch_of,
        rematch_id=record.rematch_id,
        rated=record.rated,
        reserved_until=record.reserved_until if record.reserved() else None,
        ws_path=f"/ws/tables/{record.id}",
    )


async def find_table(hub: TableHub, table_id: str) -> TableRecord:
    """The table ``table_id`` as stored, or ``404`` (the review's route asks the same)."""
    record = await hub.db(hub.storage.table, table_id)
    if record is None:
        raise HTTPException(404, _("there is no such table"))
    return record


async def token_seat(
    hub: TableHub, table_id: str, token: HTTPAuthorizationCredentials | None
) -> int:
    """The seat a bearer token holds at the table: ``401`` without a token, ``403`` for a
    token of no seat there."""
    if token is None or not token.credentials:
        raise HTTPException(401, _("this needs the seat token: Authorization: Bearer <token>"))
    seat = await hub.db(hub.storage.seat_of, table_id, hash_token(token.credentials))
    if seat is None:
        raise HTTPException(403, _("this token holds no seat at this table"))
    return int(seat)


def _id(account: Account | None) -> str | None:
    return account.id if account is not None else None


def _creator(request: Request) -> str:
    """What the table keeps of the address it was created from (:func:`creator_key`)."""
    return creator_key(client_address(request.scope))


Creator = Annotated[str, Depends(_creator)]


@router.post("/tables", status_code=201, response_model=CreateReply)
async def create_table(
    spec: CreateTable, public_url: PublicUrl, hub: Hub, creator: Creator, account: CurrentAccount
) -> CreateReply:
    """Create a table of 2 to 8 seats (people and computer players). With ``name``, the
    creator takes the first person's seat and gets its token."""
    try:
        options: dict[str, object] = dict(spec.rules.options)
        if spec.target is not None:
            options["target"] = spec.target
        # a preset field holds a preset's name, never a rules line
        rules = Rules.from_spec(spec.rules.preset and Rules.preset(spec.rules.preset), options)
    except InvalidRules as e:
        raise HTTPException(422, str(e)) from None
    if spec.name is not None and not any(s.kind == "human" for s in spec.seats):
        raise HTTPException(422, _("there is no person's seat for you at this table"))
    config = hub.config
    if not any(s.kind == "human" for s in spec.seats) and not config.allow_bot_tables:
        raise HTTPException(
            422,
            _(
                "a table needs at least one person's seat: computer players play only for "
                "people (all-computer tables need rummy500 serve --allow-bot-tables)"
            ),
        )
    if spec.seed is not None and not config.allow_seeds:
        raise HTTPException(
            422, _("this server does not take seeds (rummy500 serve --allow-seeds)")
        )
    turn = spec.turn_seconds if spec.turn_seconds is not None else config.turn_seconds
    seed = spec.seed if spec.seed is not None else secrets.randbits(62)
    create = functools.partial(
        hub.storage.create_table,
        seats_spec=[(s.kind, s.level if s.kind == "bot" else None) for s in spec.seats],
        names=computer_names([s.kind for s in spec.seats], seed, taken=[spec.name]),
        rules=str(rules),
        seed=seed,
        private=spec.private,
        call_seconds=spec.call_seconds if spec.call_seconds is not None else config.call_seconds,
        turn_seconds=turn or None,
        away_seconds=spec.away_seconds if spec.away_seconds is not None else config.away_seconds,
        hand_pause=spec.hand_pause if spec.hand_pause is not None else config.hand_pause,
        max_moves=config.max_moves_per_hand,
        creator=creator,
    )
    record = await hub.db(create)
    seat = token = None
    if spec.name is not None:
        token = new_token()
        take = functools.partial(hub.storage.take_seat, account_id=_id(account))
        number = await hub.db(take, record.id, spec.name, hash_token(token), None)
        seat = seat_str(number)
    await hub.seats_changed(record.id)
    record = await find_table(hub, record.id)
    return CreateReply(table=table_info(record, public_url), seat=seat, token=token)


#: The most tables a page of a list has (and the default, as before there were pages).
MAX_PAGE = 50
#: No cursor the server gives is longer.
MAX_CURSOR = 200


def _cursor(key: ListKey) -> str:
    """Where the next page starts, as the client sends it back: opaque to it."""
    text = json.dumps(list(key), separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _after(cursor: str) -> ListKey:
    """The key a cursor of :func:`_cursor` holds (``422`` for anything else)."""
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        status, created_at, table_id = data
        if status not in ("waiting", "playing") or not isinstance(table_id, str):
            raise ValueError
        if isinstance(created_at, bool) or not isinstance(created_at, int | float):
            raise ValueError
        return (status, float(created_at), table_id)
    except (ValueError, TypeError, binascii.Error):
        raise HTTPException(
            422, _("this is not a cursor of the table list: ask for its first page again")
        ) from None


@router.get("/tables", response_model=TableList)
async def open_tables(
    public_url: PublicUrl,
    hub: Hub,
    status: Annotated[
        Literal["open", "playing"],
        Query(description="open: a free seat for a person; playing: games to watch."),
    ] = "open",
    cursor: Annotated[
        str | None,
        Query(description="The next_cursor of the page before (none: the first page)."),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=MAX_PAGE, description="The most tables on the page.")
    ] = MAX_PAGE,
) -> TableList:
    """Public tables with a free seat for a person (those still waiting first), or with
    ``status=playing`` the public games being played, to watch; newest first, a page at a
    time. Tables no person has been at for ``--unattended-seconds`` are not listed, and at
    most ``--listed-per-address`` tables made from one address are (its newest)."""
    config = hub.config
    after = _after(cursor) if cursor else None
    unattended = config.unattended_seconds
    find = functools.partial(
        hub.storage.table_page,
        limit,
        playing=status == "playing",
        after=after,
        per_creator=config.listed_per_address,
        attended_since=time.time() - unattended if unattended > 0 else None,
    )
    records, last = await hub.db(find)
    return TableList(
        tables=[table_info(r, public_url) for r in records],
        next_cursor=_cursor(last) if last is not None else None,
    )


@router.get("/rules", response_class=Response, responses={200: {"content": {JSON: {}}}})
async def rules_catalog() -> Response:
    """Every rule option (its values, default first), every preset and every bot level, each
    with a sentence that explains it, in the request's language (``Accept-Language``): what a
    client needs to offer them without a copy of its own (docs/protocol.md)."""
    return Response(
        _catalog_text(current_language()), media_type=JSON, headers={"Vary": "Accept-Language"}
    )


@functools.cache
def _catalog_text(language: str) -> bytes:
    """The catalog's text in a shipped language, made once per language (a few are shipped)."""
    with use_language(language):
        return json.dumps(rules_catalog_data(), ensure_ascii=False).encode()


def rules_catalog_data() -> dict[str, Any]:
    """``GET /api/rules`` as data, in the current language. An option offers ``values`` (the
    default first; ``null`` for the number ``target``), its ``default`` and ``help`` (the whole
    option in a sentence); an option with values also its ``name``, what it decides
    (``about``) and each value's ``name`` and ``help`` (``choices``). A preset gives the
    ``options`` it changes, its ``name`` and ``help``; ``levels`` says what each bot level plays
    like and ``level_names`` how it is called, both in the order to offer them (levels for
    testing last)."""
    defaults = Rules().as_dict()
    options: dict[str, Any] = {}
    for name in Rules.OPTIONS:
        option: dict[str, Any] = {
            "values": None if name == "target" else list(option_choices(name)),
            "default": defaults[name],
            "help": _(OPTION_HELP[name]),
        }
        if name in OPTION_WORDS:
            option["name"] = _(OPTION_WORDS[name].name)
            option["about"] = _(OPTION_WORDS[name].help)
            option["choices"] = {
                value: {"name": _(words.name), "help": _(words.help)}
                for value, words in VALUE_WORDS[name].items()
            }
        options[name] = option
    levels = sorted(BOT_LEVELS, key=lambda level: LEVELS[level].testing)
    return {
        "options": options,
        "presets": {
            name: {
                "options": {k: v for k, v in preset.as_dict().items() if v != defaults[k]},
                "help": _(PRESET_HELP[name]),
                "name": _(PRESET_NAMES[name]),
            }
            for name, preset in PRESETS.items()
        },
        "levels": {level: _(LEVEL_HELP[level]) for level in levels},
        "level_names": {level: _(LEVEL_NAMES[level]) for level in levels},
    }


@router.get("/tables/{table_id}", response_model=TableInfo)
async def get_table(table_id: str, public_url: PublicUrl, hub: Hub) -> TableInfo:
    """One table: its seats, rules and status (no card), and the accounts seated."""
    record = await find_table(hub, table_id)
    info = table_info(record, public_url)
    seated = await hub.db(hub.storage.seat_accounts, table_id)
    info.accounts = {seat_str(n): name for n, name in sorted(seated.items())}
    if record.rated:
        rated = await hub.db(table_ratings, hub.storage, table_id, record.players)
        info.ratings = {seat_str(n): r for n, r in sorted(rated.items())}
    return info


@router.get("/invites/{code}", response_model=TableInfo)
async def find_invite(code: str, public_url: PublicUrl, hub: Hub) -> TableInfo:
    """The table an invite code opens (private tables included). Any case, with or without
    the dashes. Look-ups are limited per client address (``429``)."""
    if len(canonical_invite(code)) > 16:
        raise HTTPException(404, _("there is no table with this invite code"))
    record = await hub.db(hub.storage.table_by_invite, code)
    if record is None:
        raise HTTPException(404, _("there is no table with this invite code"))
    return table_info(record, public_url)


@router.post("/tables/{table_id}/join", response_model=JoinReply)
async def join(
    table_id: str, body: JoinRequest, public_url: PublicUrl, hub: Hub, account: CurrentAccount
) -> JoinReply:
    """Take a free person's seat with a name (unique at the table, ignoring case). The reply's
    token is the key to the seat. A rematch's seats are kept for the players of the last game
    for a while (``409`` meanwhile). Signed in, the seat is the account's game; an account
    blocked by someone seated there (or blocking them) cannot join (``403``). A rated game's
    seats are its paired players' only (``409``)."""
    if (await find_table(hub, table_id)).rated:
        raise HTTPException(409, _("the seats of a rated game are its paired players' only"))
    if account is not None and await hub.db(hub.storage.blocked_at_table, table_id, account.id):
        raise HTTPException(403, _("you cannot join this table"))
    try:
        wanted = parse_seat(body.seat) if body.seat else None
    except NotationError as e:
        raise HTTPException(422, str(e)) from None
    token = new_token()
    try:
        take = functools.partial(hub.storage.take_seat, account_id=_id(account))
        number = await hub.db(take, table_id, body.name, hash_token(token), wanted)
    except SeatError as e:
        raise HTTPException(409, str(e)) from None
    await hub.seats_changed(table_id)
    record = await find_table(hub, table_id)
    return JoinReply(table=table_info(record, public_url), seat=seat_str(number), token=token)


@router.post("/tables/{table_id}/leave")
async def leave(table_id: str, token: Token, hub: Hub) -> dict[str, str]:
    """Give up the seat: the token stops working. In a game in progress a computer player
    plays the seat until someone else takes it. Leaving a rated game in progress abandons it:
    a loss (docs/accounts.md)."""
    record = await find_table(hub, table_id)
    number = await token_seat(hub, table_id, token)
    assert token is not None
    if record.rated and record.status == "playing":
        await hub.db(abandon, hub.storage, table_id, number)
    seat = await hub.db(hub.storage.free_seat, table_id, hash_token(token.credentials))
    if seat is None:
        raise HTTPException(403, _("this token holds no seat at this table"))
    await hub.seats_changed(table_id, vacated=seat)
    return {"seat": seat_str(seat), "status": "left"}


@router.post("/tables/{table_id}/rematch", response_model=JoinReply)
async def rematch(
    table_id: str,
    token: Token,
    public_url: PublicUrl,
    hub: Hub,
    creator: Creator,
    account: CurrentAccount,
) -> JoinReply:
    """After the game: the same seats and rules at a new table. The first player to ask creates
    it; everyone who asks with their token gets their own seat there, with a new token. For
    ``rematch_grace_seconds`` the seats are kept for the players of the game: the new table
    is not listed and strangers cannot join it."""
    record = await find_table(hub, table_id)
    seat = await token_seat(hub, table_id, token)
    if record.status != "finished":
        raise HTTPException(409, _("the game is not over yet"))
    create = functools.partial(
        hub.storage.create_table,
        seats_spec=[(s.kind, s.level) for s in record.seats],
        names=[s.name if s.kind == "bot" else None for s in record.seats],  # the same players
        rules=record.rules,
        seed=secrets.randbits(62),
        private=record.private,
        call_seconds=record.call_seconds,
        turn_seconds=record.turn_seconds,
        away_seconds=record.away_seconds,
        hand_pause=record.hand_pause,
        max_moves=record.max_moves,
        rematch_of=record.id,
        reserved_until=time.time() + hub.config.rematch_grace_seconds,
        creator=creator,
    )
    new = await hub.db(create)
    new_seat_token = new_token()
    name = record.seats[seat].name or seat_str(seat)
    try:
        take = functools.partial(hub.storage.take_seat, reserved=True, account_id=_id(account))
        await hub.db(take, new.id, name, hash_token(new_seat_token), seat)
    except SeatError as e:
        raise HTTPException(409, str(e)) from None
    await hub.rematch_ready(table_id, new)
    await hub.seats_changed(new.id)
    new = await find_table(hub, new.id)
    return JoinReply(table=table_info(new, public_url), seat=seat_str(seat), token=new_seat_token)


@router.get("/tables/{table_id}/record", response_class=PlainTextResponse)
async def game_record(table_id: str, hub: Hub) -> str:
    """The ``.r500`` record of a finished game (every deal and move). Refused while the game
    is on: it shows every hand. Built once and kept; fetches are limited per client address."""
    record = await find_table(hub, table_id)
    if record.status != "finished":
        raise HTTPException(409, _("the record is available when the game is over"))
    text = await hub.db(hub.storage.record_text, table_id)
    if text is None:
        text = await build_record(hub, record)
    return text


#: Records being built, by table: a burst of requests for one game builds it once.
_building: dict[str, asyncio.Future[str]] = {}


async def build_record(hub: TableHub, record: TableRecord) -> str:
    """A finished game's record, written once and stored (requests for it meanwhile wait for
    the same one); the review reads it too."""
    from rummy500.notation import format_record

    pending = _building.get(record.id)
    if pending is not None:
        return await asyncio.shield(pending)
    future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
    _building[record.id] = future
    try:
        events = await hub.db(hub.storage.events, record.id)
        game = await hub.db(rebuild_game, record, events)
        assert game is not None
        text = format_record(game, comment=record_comment(record.id, record.seats))
        await hub.db(hub.storage.save_record, record.id, text)
        text = await hub.db(hub.storage.record_text, record.id) or text
    except BaseException as e:
        future.set_exception(e)
        raise
    finally:
        _building.pop(record.id, None)
    future.set_result(text)
    return text


@router.get("/health")
async def health() -> dict[str, str]:
    """Whether the server is up."""
    return {"status": "ok"}
