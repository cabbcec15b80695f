"""What keeps one client from taking the lobby for itself, and the browser's own protections.

- :class:`RateLimiter` is the one token bucket of the server: per WebSocket connection (in
  ``app.py``) and per client address and kind of lobby request (here).
- :class:`LobbyLimits` answers ``429`` with ``Retry-After`` to an address that creates tables,
  joins, looks up invite codes, fetches records or asks for rematches faster than allowed, and
  keeps a generous limit on the rest of ``/api``. It remembers a bounded number of addresses
  (the least recently seen are forgotten first). Its :class:`AddressLimits` also count the
  records asked for on a table's WebSocket.
- :class:`BrowserProtections` puts ``Content-Security-Policy``, ``nosniff``, a frame ban and a
  referrer policy on every HTTP answer.

The client address is ``scope["client"]``: uvicorn rewrites it from ``X-Forwarded-For`` only
for a request that comes from an address in ``--forwarded-allow-ips`` (see ``commands.py``).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import math
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rummy500.i18n import N_, _
from rummy500.server.config import ServerConfig

__all__ = [
    "AddressLimits",
    "BrowserProtections",
    "LobbyLimits",
    "RateLimiter",
    "client_address",
    "content_security_policy",
    "origin_of",
    "per_minute",
]


class RateLimiter:
    """A token bucket: ``rate`` requests a second on average, bursts of up to ``burst``."""

    __slots__ = ("burst", "last", "rate", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait(self) -> float:
        """Seconds until the next request would be allowed (0 if it would be now)."""
        if self.tokens >= 1 or self.rate <= 0:
            return 0.0
        return (1 - self.tokens) / self.rate


@dataclass(frozen=True)
class LobbyLimit:
    """One kind of lobby request, how to recognise it, and how it is named to a client."""

    kind: str
    method: str
    path: re.Pattern[str]
    what: str  # N_(): "table creations", …


_ID = r"[^/]+"
#: The kinds of request that have their own limit, first match wins; the rest of /api is "api".
LOBBY_LIMITS = (
    LobbyLimit("tables", "POST", re.compile(r"^/api/tables/?$"), N_("table creations")),
    LobbyLimit("joins", "POST", re.compile(rf"^/api/tables/{_ID}/join$"), N_("joins")),
    LobbyLimit("invites", "GET", re.compile(rf"^/api/invites/{_ID}$"), N_("invite look-ups")),
    LobbyLimit("records", "GET", re.compile(rf"^/api/tables/{_ID}/record$"), N_("records")),
    LobbyLimit("reviews", "GET", re.compile(rf"^/api/tables/{_ID}/review$"), N_("reviews")),
    LobbyLimit("rematches", "POST", re.compile(rf"^/api/tables/{_ID}/rematch$"), N_("rematches")),
    LobbyLimit("signups", "POST", re.compile(r"^/api/account/register/options$"), N_("sign-ups")),
    LobbyLimit("signins", "POST", re.compile(r"^/api/account/signin/options$"), N_("sign-ins")),
    LobbyLimit("seeks", "POST", re.compile(r"^/api/pairing$"), N_("Play now presses")),
)
_API_WHAT = N_("requests")
#: How each kind of request is named to a client.
_WHAT = {limit.kind: limit.what for limit in LOBBY_LIMITS} | {"api": _API_WHAT}


def per_minute(config: ServerConfig) -> dict[str, int]:
    """The limit of each kind of request, a minute per client address (0: none)."""
    return {
        "tables": config.tables_per_minute,
        "joins": config.joins_per_minute,
        "invites": config.invites_per_minute,
        "records": config.records_per_minute,
        "reviews": config.reviews_per_minute,
        "rematches": config.rematches_per_minute,
        "api": config.api_per_minute,
        # a sign-up or sign-in begins with its options (the challenge, used once, for the
        # passkey's answer): those are counted
        "signups": config.signups_per_minute,
        "signins": config.signins_per_minute,
        "seeks": config.seeks_per_minute,
    }


def client_address(scope: Any) -> str:
    """Whose request this is: the client's IP address; an IPv6 address by its /64 network
    (one household or server usually has a whole /64)."""
    client = scope.get("client")
    host = str(client[0]) if client else ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class AddressLimits:
    """A token bucket per client address and kind, for at most ``capacity`` addresses."""

    def __init__(self, limits: dict[str, int], capacity: int) -> None:
        self.limits = {kind: n for kind, n in limits.items() if n > 0}
        self.capacity = max(1, capacity)
        self.addresses: OrderedDict[str, dict[str, RateLimiter]] = OrderedDict()

    def wait(self, address: str, kind: str) -> float:
        """0 if ``address`` may make a ``kind`` request now (and count it), else the seconds
        until it may."""
        limit = self.limits.get(kind)
        if limit is None:
            return 0.0
        buckets = self.addresses.get(address)
        if buckets is None:
            buckets = self.addresses[address] = {}
            while len(self.addresses) > self.capacity:
                self.addresses.popitem(last=False)
        else:
            self.addresses.move_to_end(address)
        bucket = buckets.get(kind)
        if bucket is None:
            bucket = buckets[kind] = RateLimiter(limit / 60.0, limit)
        if bucket.allow():
            return 0.0
        return max(bucket.wait(), 0.001)

    def refusal(self, address: str, kind: str) -> str | None:
        """``None`` if ``address`` may make a ``kind`` request now (and count it), else why not,
        in the current language (as a lobby ``429``'s ``detail``)."""
        wait = self.wait(address, kind)
        if not wait:
            return None
        return _too_many(_WHAT[kind], self.limits[kind], max(1, math.ceil(wait)))


def _too_many(what: str, n: int, seconds: int) -> str:
    return _(
        "too many {what} from your address: at most {n} a minute; try again in {s} seconds"
    ).format(what=_(what), n=n, s=seconds)


class LobbyLimits:
    """ASGI middleware: ``429`` with ``Retry-After`` for a client over its lobby limits."""

    def __init__(self, app: Any, config: ServerConfig, limits: AddressLimits | None = None) -> None:
        self.app = app
        self.config = config
        #: (``limits``: shared with the tables' WebSockets, which count records in it too)
        self.limits = limits or AddressLimits(per_minute(config), config.limit_addresses)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith("/api"):
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope.get("method", "GET")
        kind, what = "api", _API_WHAT
        for limit in LOBBY_LIMITS:
            if method == limit.method and limit.path.match(path):
                kind, what = limit.kind, limit.what
                break
        wait = self.limits.wait(client_address(scope), kind)
        if not wait:
            await self.app(scope, receive, send)
            return
        seconds = max(1, math.ceil(wait))
        detail = _too_many(what, self.limits.limits[kind], seconds)
        await _send_json(send, 429, {"detail": detail}, [(b"retry-after", str(seconds).encode())])


async def _send_json(
    send: Any, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]]
) -> None:
    import json

    data = json.dumps(body, ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


# --- the browser's protections -----------------------------------------------------------------


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower case, without a default port."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def inline_script_hashes(web_dir: Path) -> list[str]:
    """CSP hashes of the inline scripts of the game's pages (the import map: browsers take
    no import map from a file)."""
    hashes = []
    for page in sorted(web_dir.glob("*.html")) if web_dir.is_dir() else []:
        for script in _INLINE_SCRIPT.findall(page.read_text(encoding="utf-8")):
            digest = hashlib.sha256(script.encode("utf-8")).digest()
            hashes.append(f"'sha256-{base64.b64encode(digest).decode()}'")
    return hashes


def content_security_policy(config: ServerConfig) -> str:
    """Scripts, styles, images and connections from the server itself only; no frames, no
    plugins, no ``<base>``."""
    connect = ["'self'"]
    if config.public_url:
        origin = origin_of(config.public_url)
        connect.append(origin.replace("https://", "wss://", 1).replace("http://", "ws://", 1))
    script = ["'self'", *inline_script_hashes(config.web_dir)]
    return "; ".join(
        [
            "default-src 'self'",
            "script-src " + " ".join(script),
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src " + " ".join(connect),
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


#: The CSP of ``/docs`` when ``serve --docs`` turns it on: FastAPI's page loads swagger-ui from a
#: CDN and starts it with an inline script.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


class BrowserProtections:
    """ASGI middleware: the same protective headers on every HTTP answer (pages, files, API)."""

    def __init__(self, app: Any, config: ServerConfig) -> None:
        self.app = app
        common = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
            (b"cross-origin-opener-policy", b"same-origin"),
        ]
        self.headers = [
            (b"content-security-policy", content_security_policy(config).encode()),
            *common,
        ]
        self.docs_headers = [(b"content-security-policy", DOCS_CSP.encode()), *common]
        self.docs = config.docs

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers
        if self.docs and scope.get("path", "") in ("/docs", "/docs/oauth2-redirect"):
            extra = self.docs_headers
        names = {name for name, _value in extra}

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": [*kept, *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
