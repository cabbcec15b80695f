"""Every text a player sees goes through gettext, engine error reasons included."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from rummy500 import i18n
from rummy500.engine import Game, IllegalMove, Move
from rummy500.engine.reasons import card_label

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "rummy500"
POT = PACKAGE / "locale" / "rummy500.pot"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def _extracted() -> set[str]:
    ids = set()
    for _file, _line, message, _comments, _ctx in extract_from_dir(
        str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


def test_message_catalog_template_is_up_to_date() -> None:
    """`make messages` has been run: the committed POT holds every marked message."""
    with POT.open("rb") as f:
        catalog = read_po(f)
    committed = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    missing = _extracted() - committed
    assert not missing, f"run `make messages`; missing from the POT: {sorted(missing)[:5]}"


@pytest.fixture
def hungarian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A throw-away language whose translation of one engine reason is recognisable."""
    catalog = Catalog(locale="hu", domain="rummy500")
    catalog.add(
        "you must meld the {card} you took from the discard pile first",
        "előbb a felvett {card} lapot kell kiraknod",
    )
    target = tmp_path / "hu" / "LC_MESSAGES"
    target.mkdir(parents=True)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    (target / "rummy500.mo").write_bytes(buf.getvalue())
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.set_language("hu")
    yield
    i18n.set_language(None)


def test_engine_error_reasons_are_translated(hungarian: None) -> None:
    # Play on until someone can take two discards, then try to discard before melding.
    game = Game.new(3, seed=1)
    while True:
        moves = [m for m in game.legal_moves() if m.verb == "take" and m.number >= 2]
        if moves:
            break
        game.play(next(m for m in game.legal_moves() if m.verb in ("draw", "discard", "pass")))
    game.play(moves[0])
    seat = moves[0].seat
    discard = next(c for c in game.hand(seat) if c != game.must_use)
    before = game.to_json()
    with pytest.raises(IllegalMove) as err:
        game.play(Move(seat, "discard", (discard,)))
    assert str(err.value) == f"előbb a felvett {card_label(game.must_use)} lapot kell kiraknod"
    assert err.value.code == "must_meld_taken"
    assert game.to_json() == before
