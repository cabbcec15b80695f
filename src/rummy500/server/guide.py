"""How to play, served: ``GET /api/guide``, the guide every front end shows
(:mod:`rummy500.guide`), in the language of the request and for the rules it names.

The browser's start page and its table help show it; the terminal game and ``rummy500 rules``
say the same sections themselves. A guide is said once per language and rules, and the most
recently asked :data:`KEPT_GUIDES` are kept; the query is short (``422`` past
:data:`MAX_RULES_TEXT` characters) and counts among the address's other ``/api`` requests.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response

from rummy500.engine import InvalidRules, Rules
from rummy500.guide import guide_json
from rummy500.i18n import current_language

__all__ = ["KEPT_GUIDES", "MAX_RULES_TEXT", "router"]

router = APIRouter(prefix="/api", tags=["lobby"])

#: Guides kept, each said in one language for one set of rules (about 6 KB each).
KEPT_GUIDES = 128
#: The longest ``rules`` a request may give: every option written out is under 100 characters.
MAX_RULES_TEXT = 400
#: The longest preset name (the presets' are at most 9 characters).
MAX_PRESET = 32

_kept: OrderedDict[tuple[str, Rules], bytes] = OrderedDict()


def guide_body(rules: Rules) -> bytes:
    """The guide's JSON in the current language (said once, then kept: the least recently asked
    are forgotten past :data:`KEPT_GUIDES`)."""
    key = (current_language(), rules)
    body = _kept.get(key)
    if body is None:
        body = json.dumps(guide_json(rules), ensure_ascii=False).encode()
        _kept[key] = body
        while len(_kept) > KEPT_GUIDES:
            _kept.popitem(last=False)
    else:
        _kept.move_to_end(key)
    return body


@router.get("/guide")
async def how_to_play(
    preset: Annotated[
        str | None,
        Query(max_length=MAX_PRESET, description="A preset: standard, hoyle, 5-10-15, …"),
    ] = None,
    rules: Annotated[
        str | None,
        Query(
            max_length=MAX_RULES_TEXT,
            description="Rule options `name=value`, space-separated (a table's `rules` line).",
        ),
    ] = None,
) -> Response:
    """How to play for a table of these rules (the standard game by default), in the language
    of ``Accept-Language``: sections with a title, paragraphs and examples whose cards are in
    notation (for pictures) and in text. See docs/protocol.md."""
    try:
        chosen = Rules.from_spec(preset, [rules] if rules else None)
    except InvalidRules as e:
        raise HTTPException(422, str(e)) from None
    return Response(
        guide_body(chosen),
        media_type="application/json",
        headers={"Vary": "Accept-Language", "Cache-Control": "public, max-age=3600"},
    )
