"""Accounts: who a browser is signed in as (see ``docs/accounts.md``).

A signed-in browser holds a session cookie (:data:`SESSION_COOKIE`: ``Secure``, ``HttpOnly``,
``SameSite=Lax``) whose token the database keeps only hashed (``sessions``); signing out
deletes the row, so the cookie stops working at once on every process. Routes that care who
is asking take :func:`current_account` as a FastAPI dependency.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from rummy500.server.storage import Account, Storage, hash_token

__all__ = ["SESSION_COOKIE", "CurrentAccount", "current_account", "session_token"]

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
