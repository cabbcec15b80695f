"""Accounts: who a browser is signed in as (see ``docs/accounts.md``).

A signed-in browser holds a session cookie (:data:`SESSION_COOKIE`: ``Secure``, ``HttpOnly``,
``SameSite=Lax``) whose token the database keeps only hashed (``sessions``); signing out
deletes the row, so the cookie stops working at once on every process. Routes that care who
is asking take :func:`current_account` as a FastAPI dependency.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from rummy500.i18n import _
from rummy500.server.client_messages import MAX_NAME_INPUT, clean_text, normalize_name
from rummy500.server.config import ServerConfig
from rummy500.server.limits import client_address, origin_of
from rummy500.server.storage import (
    REPORTS_WAITING,
    Account,
    AccountError,
    Challenge,
    NewPasskey,
    Passkey,
    Storage,
    creator_key,
    hash_token,
    new_token,
)
from rummy500.server.tables import TableHub

__all__ = [
    "SESSION_COOKIE",
    "CurrentAccount",
    "RelyingParty",
    "check_username",
    "current_account",
    "relying_party",
    "router",
    "session_token",
]

log = logging.getLogger("rummy500.server")

#: What a malformed or forged passkey answer raises in the checks.
_REFUSED = (WebAuthnException, ValueError, KeyError, TypeError, AttributeError)

#: The session cookie's name.
SESSION_COOKIE = "rummy500_session"
#: A session token is 43 characters (256 bits, base64url); anything longer is none.
MAX_TOKEN = 64


def session_token(request: Request) -> str | None:
    """The session token the request's cookie carries, if it looks like one."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token or len(token) > MAX_TOKEN:
        return None
    return token


async def current_account(request: Request) -> Account | None:
    """The account the request's session cookie signs in (``None``: a guest, or a session
    that ended, or a banned account). One database look-up per request that has a cookie;
    the answer is kept on the request for the rest of it."""
    if "account" in request.state._state:
        cached: Account | None = request.state.account
        return cached
    token = session_token(request)
    account = None
    if token is not None:
        hub = request.app.state.hub
        storage: Storage = hub.storage
        account = await hub.db(storage.session_account, hash_token(token))
    request.state.account = account
    return account


#: A route's parameter for the signed-in account (or ``None``).
CurrentAccount = Annotated[Account | None, Depends(current_account)]


# --- the relying party --------------------------------------------------------------------------


@dataclass(frozen=True)
class RelyingParty:
    """Where passkeys are good: the relying party's id (the host name) and the origin pages
    come from. From ``--public-url``; without it (a server for one machine: ``make play``,
    tests) from the request's own address."""

    id: str
    origin: str
    #: whether the session cookie is ``Secure``: always, but for a ``--public-url`` of plain
    #: ``http://`` on a host that is not this machine (browsers keep no ``Secure`` cookie
    #: from such a site; they do from ``http://localhost`` and ``http://127.0.0.1``).
    secure: bool


def relying_party(request: Request) -> RelyingParty:
    config: ServerConfig = request.app.state.config
    url = config.public_url or str(request.base_url)
    origin = origin_of(url)
    host = urlsplit(origin).hostname or "localhost"
    loopback = host == "localhost" or host.endswith(".localhost")
    with contextlib.suppress(ValueError):
        loopback = loopback or ipaddress.ip_address(host).is_loopback
    return RelyingParty(host, origin, origin.startswith("https://") or loopback)


RP = Annotated[RelyingParty, Depends(relying_party)]


def _hub(request: Request) -> TableHub:
    hub: TableHub = request.app.state.hub
    return hub


Hub = Annotated[TableHub, Depends(_hub)]


def _creator(request: Request) -> str:
    return creator_key(client_address(request.scope))


Creator = Annotated[str, Depends(_creator)]


async def signed_in(request: Request) -> Account:
    """The signed-in account, or ``401``."""
    account = await current_account(request)
    if account is None:
        raise HTTPException(401, _("sign in first"))
    return account


SignedIn = Annotated[Account, Depends(signed_in)]


# --- requests and replies -----------------------------------------------------------------------

#: Seats a guest's browser may hand over at sign-up (or later, in one request).
MAX_CLAIMED_SEATS = 200
#: The browser's own statistics, as imported once (JSON text).
MAX_LOCAL_STATS = 8 * 1024


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UsernameRequest(_Strict):
    username: str = Field(min_length=1, max_length=MAX_NAME_INPUT)

    @field_validator("username")
    @classmethod
    def _valid(cls, value: str) -> str:
        return check_username(value)


class SeatClaim(_Strict):
    table_id: str = Field(min_length=1, max_length=64)
    token: str = Field(min_length=1, max_length=128)


class CredentialRequest(_Strict):
    """A passkey's answer (``PublicKeyCredential.toJSON()``), with what goes along."""

    credential: dict[str, Any]
    label: str | None = Field(None, max_length=64)
    #: sign-up: the seats this browser took as a guest, to keep as the account's games
    seats: list[SeatClaim] = Field(default_factory=list, max_length=MAX_CLAIMED_SEATS)
    #: sign-up: the browser's own statistics, imported once
    local_stats: dict[str, Any] | None = None


class ClaimRequest(_Strict):
    seats: list[SeatClaim] = Field(max_length=MAX_CLAIMED_SEATS)


class DeleteRequest(_Strict):
    #: a passkey of the account signing the challenge of ``POST /api/account/delete/options``
    credential: dict[str, Any]


class ReportRequest(_Strict):
    username: str = Field(min_length=1, max_length=MAX_NAME_INPUT)
    reason: str = Field(min_length=1, max_length=500)
    table_id: str | None = Field(None, max_length=64)


#: Characters a username may not have (it is a part of the profile's address).
_NOT_IN_USERNAMES = frozenset(" /\\?#%&+<>\"'`")


def check_username(value: str) -> str:
    """A username as kept: a name as a seat's (:func:`normalize_name`), of 2 characters or
    more, without spaces nor the characters of addresses (``/``, ``?``, ``#``, ``%`` …)."""
    name = normalize_name(value)
    if len(name) < 2:
        raise ValueError(_("a username has 2 characters or more"))
    if any(ch in _NOT_IN_USERNAMES or ch.isspace() for ch in name):
        raise ValueError(_("a username has no spaces and none of / \\ ? # % & + < > \" ' `"))
    return name


def _b64(data: bytes) -> str:
    return bytes_to_base64url(data)


def _session_cookie(response: Response, token: str, rp: RelyingParty, seconds: float) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(seconds),
        path="/",
        secure=rp.secure,
        httponly=True,
        samesite="lax",
    )


def _forget_cookie(response: Response, rp: RelyingParty) -> None:
    response.delete_cookie(
        SESSION_COOKIE, path="/", secure=rp.secure, httponly=True, samesite="lax"
    )


async def _challenge(
    hub: TableHub, options: Any, purpose: str, creator: str, **fields: Any
) -> dict[str, Any]:
    """Keep the challenge of ``options`` (single-use, expiring, bounded in total and per
    address) and answer with the options for the browser; 429 past the bounds."""
    config = hub.config
    challenge = Challenge(
        challenge=_b64(options.challenge),
        purpose=purpose,
        expires_at=time.time() + config.challenge_seconds,
        creator=creator,
        **fields,
    )
    put = functools.partial(
        hub.storage.put_challenge,
        most=config.max_challenges,
        per_creator=config.challenges_per_address,
    )
    if not await hub.db(put, challenge):
        raise HTTPException(
            429,
            _("too many passkey requests are waiting: try again in a few minutes"),
            headers={"Retry-After": str(max(1, int(config.challenge_seconds // 4)))},
        )
    return {"options": json.loads(options_to_json(options))}


def _client_challenge(credential: dict[str, Any]) -> str:
    """The challenge a passkey's answer signed (from its ``clientDataJSON``)."""
    try:
        data = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        challenge = data["challenge"]
    except (KeyError, TypeError, ValueError):
        raise HTTPException(422, _("this is not a passkey's answer")) from None
    if not isinstance(challenge, str) or len(challenge) > 128:
        raise HTTPException(422, _("this is not a passkey's answer"))
    return challenge


async def _take_challenge(hub: TableHub, credential: dict[str, Any], purpose: str) -> Challenge:
    challenge = await hub.db(hub.storage.take_challenge, _client_challenge(credential), purpose)
    if challenge is None:
        raise HTTPException(
            400, _("this passkey request expired or was already used: please try again")
        )
    return challenge


def _verify_new(
    credential: dict[str, Any], challenge: Challenge, rp: RelyingParty, label: str | None
) -> NewPasskey:
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge.challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
        )
    except _REFUSED as e:
        log.info("passkey registration refused: %s", e)
        raise HTTPException(400, _("the passkey could not be verified")) from None
    transports = credential.get("response", {}).get("transports") or []
    return NewPasskey(
        credential_id=_b64(verified.credential_id),
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        transports=tuple(str(t)[:20] for t in transports[:8] if isinstance(t, str)),
        label=label,
    )


def _account_json(account: Account, keys: list[Passkey]) -> dict[str, Any]:
    return {
        "username": account.username,
        "created_at": account.created_at,
        "passkeys": [
            {"id": k.id, "label": k.label, "created_at": k.created_at, "used_at": k.used_at}
            for k in keys
        ],
        "stats_imported": account.local_stats is not None,
    }


async def _start_session(
    hub: TableHub, account: Account, rp: RelyingParty, response: Response
) -> None:
    token = new_token()
    seconds = hub.config.session_days * 86400
    start = functools.partial(hub.storage.create_session, keep=hub.config.sessions_per_account)
    await hub.db(start, account.id, hash_token(token), seconds)
    _session_cookie(response, token, rp, seconds)


async def _check_assertion(
    hub: TableHub,
    credential: dict[str, Any],
    challenge: Challenge,
    rp: RelyingParty,
    refused: HTTPException,
) -> Account:
    """The account whose passkey signed ``challenge`` (taken: used once), checked against the
    passkey's stored public key, with the origin, relying party and signature counter;
    ``refused`` (or ``403`` for a banned account) otherwise."""
    credential_id = credential.get("id")
    if not isinstance(credential_id, str) or len(credential_id) > 1400:
        raise refused
    passkey = await hub.db(hub.storage.passkey_by_credential, credential_id)
    if passkey is None:
        raise refused
    if challenge.account_id is not None and passkey.account_id != challenge.account_id:
        raise refused  # a challenge for one account (deletion) signed by another's passkey
    account = await hub.db(hub.storage.account, passkey.account_id)
    if account is None:
        raise refused
    if account.banned:
        raise HTTPException(403, _("this account is banned"))
    response = credential.get("response")
    handle = response.get("userHandle") if isinstance(response, dict) else None
    if handle and handle != account.user_handle:
        raise refused
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge.challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=passkey.public_key,
            credential_current_sign_count=passkey.sign_count,
        )
    except _REFUSED as e:
        log.info("passkey assertion refused for %s: %s", account.username, e)
        raise refused from None
    used = await hub.db(
        hub.storage.use_passkey, passkey.id, passkey.sign_count, verified.new_sign_count
    )
    if not used:  # another assertion with this passkey got there first
        raise refused
    return account


# --- routes -------------------------------------------------------------------------------------

router = APIRouter(prefix="/api", tags=["accounts"])


@router.get("/account")
async def me(hub: Hub, account: CurrentAccount) -> dict[str, Any]:
    """Who this browser is signed in as (``{"account": null}`` for a guest)."""
    if account is None:
        return {"account": None}
    keys = await hub.db(hub.storage.passkeys, account.id)
    muted = await hub.db(hub.storage.listed, "mutes", account.id)
    blocked = await hub.db(hub.storage.listed, "blocks", account.id)
    return {"account": _account_json(account, keys), "muted": muted, "blocked": blocked}


@router.post("/account/register/options")
async def register_options(
    body: UsernameRequest, hub: Hub, rp: RP, creator: Creator
) -> dict[str, Any]:
    """Begin a sign-up: the options for ``navigator.credentials.create()`` (a discoverable
    passkey, so that it signs in without typing the name). The name is checked now and again
    when the passkey comes back. Sign-ups begun are limited per client address (``429``)."""
    if await hub.db(hub.storage.account_by_name, body.username) is not None:
        raise HTTPException(409, _("the name {name} is taken").format(name=body.username))
    handle = secrets.token_bytes(32)
    options = generate_registration_options(
        rp_id=rp.id,
        rp_name="Rummy 500",
        user_name=body.username,
        user_id=handle,
        timeout=int(hub.config.challenge_seconds * 1000),
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
    )
    return await _challenge(
        hub,
        options,
        "register",
        creator,
        username=body.username,
        user_handle=_b64(handle),
    )


@router.post("/account/register")
async def register(body: CredentialRequest, hub: Hub, rp: RP, response: Response) -> dict[str, Any]:
    """Finish a sign-up: the new passkey is checked (challenge, origin, relying party), the
    account made and this browser signed in. The seats it took as a guest become the
    account's games; its own statistics are kept once."""
    challenge = await _take_challenge(hub, body.credential, "register")
    assert challenge.username is not None and challenge.user_handle is not None
    passkey = _verify_new(body.credential, challenge, rp, body.label)
    try:
        account = await hub.db(
            hub.storage.create_account, challenge.username, challenge.user_handle, passkey
        )
    except AccountError as e:
        raise HTTPException(409, str(e)) from None
    if body.local_stats is not None:
        text = json.dumps(body.local_stats, ensure_ascii=False)
        if len(text) <= MAX_LOCAL_STATS:
            await hub.db(hub.storage.import_local_stats, account.id, text)
    claimed = await _claim(hub, account, body.seats)
    await _start_session(hub, account, rp, response)
    keys = await hub.db(hub.storage.passkeys, account.id)
    account = await hub.db(hub.storage.account, account.id) or account
    return {"account": _account_json(account, keys), "claimed": claimed}


@router.post("/account/signin/options")
async def signin_options(hub: Hub, rp: RP, creator: Creator) -> dict[str, Any]:
    """Begin a sign-in: options for ``navigator.credentials.get()`` naming no passkey (the
    browser offers the passkeys it has for this site, synced ones from another device
    included). Sign-ins begun are limited per client address (``429``)."""
    options = generate_authentication_options(
        rp_id=rp.id,
        timeout=int(hub.config.challenge_seconds * 1000),
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    return await _challenge(
        hub,
        options,
        "signin",
        creator,
    )


@router.post("/account/signin")
async def signin(body: CredentialRequest, hub: Hub, rp: RP, response: Response) -> dict[str, Any]:
    """Finish a sign-in: the passkey's signature is checked against its stored public key,
    with the challenge (used once), origin, relying party and signature counter."""
    challenge = await _take_challenge(hub, body.credential, "signin")
    refused = HTTPException(400, _("this passkey could not sign you in"))
    account = await _check_assertion(hub, body.credential, challenge, rp, refused)
    await _start_session(hub, account, rp, response)
    keys = await hub.db(hub.storage.passkeys, account.id)
    return {"account": _account_json(account, keys)}


@router.post("/account/passkeys/options")
async def passkey_options(hub: Hub, rp: RP, account: SignedIn, creator: Creator) -> dict[str, Any]:
    """Begin adding a passkey to the signed-in account."""
    keys = await hub.db(hub.storage.passkeys, account.id)
    if len(keys) >= hub.config.passkeys_per_account:
        raise HTTPException(
            409,
            _("an account has at most {n} passkeys: remove one first").format(
                n=hub.config.passkeys_per_account
            ),
        )
    options = generate_registration_options(
        rp_id=rp.id,
        rp_name="Rummy 500",
        user_name=account.username,
        user_id=base64url_to_bytes(account.user_handle),
        timeout=int(hub.config.challenge_seconds * 1000),
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.credential_id)) for k in keys
        ],
    )
    return await _challenge(
        hub,
        options,
        "add",
        creator,
        account_id=account.id,
    )


@router.post("/account/passkeys")
async def add_passkey(
    body: CredentialRequest, hub: Hub, rp: RP, account: SignedIn
) -> dict[str, Any]:
    """Finish adding a passkey."""
    challenge = await _take_challenge(hub, body.credential, "add")
    if challenge.account_id != account.id:
        raise HTTPException(
            400, _("this passkey request expired or was already used: please try again")
        )
    passkey = _verify_new(body.credential, challenge, rp, body.label)
    add = functools.partial(hub.storage.add_passkey, most=hub.config.passkeys_per_account)
    try:
        await hub.db(add, account.id, passkey)
    except AccountError as e:
        raise HTTPException(409, str(e)) from None
    keys = await hub.db(hub.storage.passkeys, account.id)
    return {"account": _account_json(account, keys)}


@router.delete("/account/passkeys/{passkey_id}")
async def remove_passkey(passkey_id: int, hub: Hub, account: SignedIn) -> dict[str, Any]:
    """Remove one of the account's passkeys (never the last: the account could not be
    signed in to again)."""
    try:
        await hub.db(hub.storage.remove_passkey, account.id, passkey_id)
    except AccountError as e:
        raise HTTPException(409, str(e)) from None
    keys = await hub.db(hub.storage.passkeys, account.id)
    return {"account": _account_json(account, keys)}


@router.post("/account/signout")
async def signout(request: Request, hub: Hub, rp: RP, response: Response) -> dict[str, str]:
    """Sign this browser out: its session ends on the server."""
    token = session_token(request)
    if token is not None:
        await hub.db(hub.storage.revoke_session, hash_token(token))
    _forget_cookie(response, rp)
    return {"status": "signed out"}


@router.post("/account/signout-everywhere")
async def signout_everywhere(
    hub: Hub, rp: RP, account: SignedIn, response: Response
) -> dict[str, Any]:
    """End every session of the account (every browser it is signed in on)."""
    ended = await hub.db(hub.storage.revoke_sessions, account.id)
    _forget_cookie(response, rp)
    return {"status": "signed out", "sessions": ended}


@router.post("/account/delete/options")
async def delete_options(hub: Hub, rp: RP, account: SignedIn, creator: Creator) -> dict[str, Any]:
    """Begin deleting the account: options for ``navigator.credentials.get()`` naming the
    account's passkeys. A browser left signed in is not enough to delete an account: one of
    its passkeys signs this challenge (good for ``--challenge-seconds``, used once)."""
    keys = await hub.db(hub.storage.passkeys, account.id)
    options = generate_authentication_options(
        rp_id=rp.id,
        timeout=int(hub.config.challenge_seconds * 1000),
        allow_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.credential_id)) for k in keys
        ],
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    return await _challenge(
        hub,
        options,
        "delete",
        creator,
        account_id=account.id,
    )


@router.delete("/account")
async def delete_account(
    body: DeleteRequest, hub: Hub, rp: RP, account: SignedIn, response: Response
) -> dict[str, str]:
    """Delete the account, once one of its passkeys signed the challenge of
    ``POST /api/account/delete/options`` (this session's account's, not expired, used once):
    its passkeys, sessions and lists go; its games stay, without its name."""
    challenge = await _take_challenge(hub, body.credential, "delete")
    refused = HTTPException(400, _("confirm with one of the account's passkeys to delete it"))
    if challenge.account_id != account.id:
        raise refused
    await _check_assertion(hub, body.credential, challenge, rp, refused)
    await hub.db(hub.storage.delete_account, account.id)
    _forget_cookie(response, rp)
    return {"status": "deleted"}


@router.post("/account/claim")
async def claim(body: ClaimRequest, hub: Hub, account: SignedIn) -> dict[str, int]:
    """Make seats this browser took as a guest (its seat tokens) the account's games."""
    return {"claimed": await _claim(hub, account, body.seats)}


async def _claim(hub: TableHub, account: Account, seats: list[SeatClaim]) -> int:
    if not seats:
        return 0
    pairs = [(s.table_id, hash_token(s.token)) for s in seats[:MAX_CLAIMED_SEATS]]
    return await hub.db(hub.storage.claim_seats, account.id, pairs)


@router.put("/account/{kind}/{username}")
async def add_to_list(
    kind: Literal["mutes", "blocks"], username: str, hub: Hub, account: SignedIn
) -> dict[str, Any]:
    """Mute (hide their chat) or block (they cannot join my tables, nor I theirs; never paired
    together) another account."""
    other = await hub.db(hub.storage.account_by_name, username[:MAX_NAME_INPUT])
    if other is None:
        raise HTTPException(404, _("there is no player called {name}").format(name=username))
    if other.id == account.id:
        raise HTTPException(422, _("you cannot mute or block yourself"))
    most = hub.config.list_per_account
    try:
        await hub.db(
            functools.partial(hub.storage.add_listed, most=most), kind, account.id, other.id
        )
    except AccountError as e:
        raise HTTPException(409, str(e)) from None
    return {kind: await hub.db(hub.storage.listed, kind, account.id)}


@router.delete("/account/{kind}/{username}")
async def remove_from_list(
    kind: Literal["mutes", "blocks"], username: str, hub: Hub, account: SignedIn
) -> dict[str, Any]:
    """Unmute or unblock."""
    other = await hub.db(hub.storage.account_by_name, username[:MAX_NAME_INPUT])
    if other is not None:
        await hub.db(hub.storage.remove_listed, kind, account.id, other.id)
    return {kind: await hub.db(hub.storage.listed, kind, account.id)}


@router.post("/reports", status_code=201)
async def report(body: ReportRequest, hub: Hub, account: SignedIn) -> dict[str, Any]:
    """Report a player to the server's operators, with the record of a table both sat at
    (``table_id``, else the last one) attached. Each account keeps a bounded number of
    open reports."""
    other = await hub.db(hub.storage.account_by_name, body.username)
    if other is None:
        raise HTTPException(404, _("there is no player called {name}").format(name=body.username))
    if other.id == account.id:
        raise HTTPException(422, _("you cannot report yourself"))
    most = hub.config.reports_per_account
    if await hub.db(hub.storage.open_reports, account.id) >= most:
        # refused before the table's record is rebuilt: a flood of reports past the cap costs
        # a count each, not a game's replay (add_report checks again, in its transaction)
        raise HTTPException(409, _(REPORTS_WAITING).format(n=most))
    table_id = await hub.db(hub.storage.shared_table, account.id, other.id, body.table_id)
    attached = await _table_record(hub, table_id) if table_id else None
    add = functools.partial(hub.storage.add_report, most=hub.config.reports_per_account)
    try:
        number = await hub.db(
            add, account.id, other.id, table_id, clean_text(body.reason, "reason"), attached
        )
    except AccountError as e:
        raise HTTPException(409, str(e)) from None
    return {"report": number, "table_id": table_id}


async def _table_record(hub: TableHub, table_id: str) -> str | None:
    """What a report keeps of a table: its ``.r500`` record (every card: only operators read
    reports) and its chat."""
    from rummy500.notation import format_record
    from rummy500.server.events import rebuild_game
    from rummy500.server.views import record_comment

    record = await hub.db(hub.storage.table, table_id)
    if record is None:
        return None
    events = await hub.db(hub.storage.events, table_id)
    game = await hub.db(rebuild_game, record, events)
    header = record_comment(record.id, record.seats)
    # before the deal (a waiting room), the header alone: the table and who sat at it
    text = format_record(game, comment=header) if game is not None else header
    lines = await hub.db(hub.storage.recent_chat, table_id, hub.config.chat_history)
    chat = "\n".join(f"# chat {line.name}: {line.text}" for line in lines)
    return (text + "\n" + chat).strip()[:200_000]
