"""Each client is answered in its own language.

An HTTP request and a table's WebSocket connection start in the language their
``Accept-Language`` header prefers (:class:`SpokenLanguage`, an ASGI middleware around the whole
app); a connection then says its own in its ``auth`` or ``watch`` message, and keeps it
(:attr:`rummy500.server.clients.Client.language`) until a ``language`` message switches it
(:meth:`~rummy500.server.clients.Client.speak`). Texts a table makes for a client outside
that client's own task — a bot's turn, a timer — are said with
:meth:`~rummy500.server.clients.Client.send_said`, in the recipient's language. The record
and the notation never change with the language.
"""

from __future__ import annotations

from typing import Any

from rummy500.i18n import language_from_accept, use_language

__all__ = ["SpokenLanguage", "accept_language"]


def accept_language(scope: dict[str, Any]) -> str:
    """The shipped language an ASGI request's ``Accept-Language`` prefers, else English."""
    for name, value in scope.get("headers") or ():
        if name == b"accept-language":
            return language_from_accept(value[:512].decode("latin-1"))
    return "en"


class SpokenLanguage:
    """Produce every text of an HTTP request or WebSocket connection in the language its
    ``Accept-Language`` header prefers (this task only: other clients keep theirs)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        with use_language(accept_language(scope)):
            await self.app(scope, receive, send)
