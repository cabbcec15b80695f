"""Every message a table sends its clients is built in one module, rummy500.server.outgoing: the
table's other modules, and the WebSocket endpoint, put no message together themselves (a dict
with a ``"type"`` key); the ASGI events the endpoint's middleware sends are not table messages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "src" / "rummy500" / "server"

#: The modules of a table in play and of the process around it that talk to its clients.
TABLE_MODULES = (
    "app",
    "calls",
    "clients",
    "turn_clock",
    "events",
    "live",
    "play",
    "seating",
    "services",
    "table_bots",
    "tables",
    "undo",
    "views",
)
#: The ASGI events (``http.response.start``…), not messages of the table protocol.
ASGI = ("http.", "websocket.")


def messages_built(source: str) -> list[tuple[int, str]]:
    """(line, type) of every dict display with a constant ``"type"`` key that is not an ASGI
    event."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "type":
                kind = value.value if isinstance(value, ast.Constant) else "?"
                if not (isinstance(kind, str) and kind.startswith(ASGI)):
                    found.append((node.lineno, str(kind)))
    return found


@pytest.mark.parametrize("module", TABLE_MODULES)
def test_no_table_module_builds_a_message_of_its_own(module: str) -> None:
    found = messages_built((SERVER / f"{module}.py").read_text(encoding="utf-8"))
    assert not found, f"{module}.py builds messages (build them in outgoing.py): {found}"


def test_the_messages_are_built_in_outgoing() -> None:
    kinds = {kind for _line, kind in messages_built((SERVER / "outgoing.py").read_text())}
    assert {"state", "update", "error", "seats", "chat", "hand_over", "game_over"} <= kinds


def test_the_check_finds_a_message_and_lets_asgi_events_be() -> None:
    source = 'pong = {"type": "pong", "version": 3}\nsend({"type": "http.response.body"})\n'
    assert messages_built(source) == [(1, "pong")]
