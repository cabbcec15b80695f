"""The flat action encoding against the engine: in every visited position of random play (13
player-count and rule combinations covering every option value) the mask is exactly the set of
actions whose moves are legal, every legal action decodes to its legal move and back, and every
legal move without an action (a new run of 4 or more cards) is played by its decomposition with
exactly the same result."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")

import numpy as np

from rummy500.engine import Game, IllegalMove, Move, Rules, parse_card
from rummy500.engine.melds import analyze_meld
from rummy500.envs import encoding as enc
from tests.envs.helpers import CONFIGS, config_id, position, random_positions


def outcome(game: Game) -> tuple[object, ...]:
    """Everything a move can change, except the list of moves itself."""
    return (
        game.phase,
        game.turn,
        [game.hand_counts(s) for s in range(game.players)],
        game.hand_sizes[:],
        game.points[:],
        game.totals[:],
        [(m.number, m.cards[:], m.owners[:]) for m in game.melds],
        game.discard[:],
        game.must_use,
        game.no_discard,
        game.window,
        [r.scores for r in game.hand_results],
    )


def check_decomposition(game: Game, move: Move) -> str:
    """Play ``move`` and its decomposition on copies; ``"ok"`` if both end the same."""
    actions = enc.decompose(game, move)
    assert len(actions) == len(move.cards) - 2
    expected = game.clone()
    expected.max_moves_per_hand = None
    expected.play(move)
    copy = game.clone()
    copy.max_moves_per_hand = None
    for action in actions:
        assert action in enc.legal_actions(copy), (str(move), enc.action_str(action))
        copy.play(enc.action_to_move(copy, action))
    assert outcome(copy) == outcome(expected), str(move)
    return "ok"


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_mask_is_exactly_the_legal_moves(config: tuple[int, Rules]) -> None:
    players, rules = config
    rng = random.Random(players)
    positions = long_runs = 0
    for seed in range(3):
        for game in random_positions(players, rules, seed=1000 * players + seed, hands=2):
            positions += 1
            moves = game.legal_moves()
            actions = enc.legal_actions(game)
            by_action: dict[int, Move] = {}
            for move in moves:
                action = enc.move_to_action(game, move)
                if action is None:
                    is_run, _key, _lo, _hi, cards = analyze_meld(move.cards)
                    assert move.verb == "meld" and is_run and len(cards) >= 4, str(move)
                    long_runs += 1
                    check_decomposition(game, move)
                    continue
                assert action not in by_action, (str(move), str(by_action.get(action)))
                by_action[action] = move
            assert actions == sorted(by_action), [str(m) for m in moves]
            for action, move in by_action.items():
                assert enc.action_to_move(game, action) == move
            mask = enc.action_mask(game)
            assert mask.dtype == np.int8 and mask.shape == (enc.NUM_ACTIONS,)
            assert np.flatnonzero(mask).tolist() == actions
            if positions % 4 == 1:
                # A bot sees only its observation and the legal moves: the same actions.
                seen = game.observation(game.to_act)
                assert enc.legal_actions(seen, moves) == actions
                for action, move in by_action.items():
                    assert enc.action_to_move(seen, action) == move
                    assert enc.move_to_action(seen, move) == action
            # Actions outside the mask are refused by the engine (or mean nothing here). In a
            # Rummy call window the engine also accepts the next player's draw as implied
            # passes (records may leave passes out); the environments ask for every pass.
            if positions % 4 == 0:
                for action in rng.sample(range(enc.NUM_ACTIONS), 6):
                    if action in by_action:
                        continue
                    if game.phase == "call" and action < enc.RUMMY and action != enc.PASS:
                        continue
                    try:
                        move = enc.action_to_move(game, action)
                    except ValueError:
                        continue
                    with pytest.raises(IllegalMove):
                        game.clone().play(move)
    assert positions > 300
    assert long_runs > 0  # each configuration meets a few new runs of 4 or more cards


def test_action_space_layout() -> None:
    assert enc.NUM_ACTIONS == 1309
    assert (enc.TAKE, enc.RUMMY, enc.DISCARD, enc.GROUP, enc.RUN, enc.LAYOFF) == (
        3,
        111,
        219,
        272,
        649,
        985,
    )
    assert len(enc.GROUPS) == 13 * 29 and len(set(enc.GROUPS)) == len(enc.GROUPS)
    assert len(enc.RUNS) == 4 * 12 * 7 and len(set(enc.RUNS)) == len(enc.RUNS)
    for cards in enc.GROUPS + enc.RUNS:
        assert analyze_meld(cards)[4] == cards  # the engine's own canonical form
    for action in range(enc.NUM_ACTIONS):
        assert enc.action_str(action)


def test_every_action_below_the_layoffs_decodes_for_any_seat() -> None:
    game = Game.new(3, seed=1)
    for action in range(enc.LAYOFF):
        move = enc.action_to_move(game, action, seat=2)
        assert move.seat == 2
        assert enc.move_to_action(game, move) == action


def test_layoff_actions_name_the_meld_and_the_end() -> None:
    game = position(
        ["2C 2S 3C 3D 4C 4D 4S 5C 5D 5S 6C 6D 6S", "3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK 2D"],
        "9C",
        "P2 draw\nP2 meld 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    )
    # The run 3H … KH is meld 1: 2H at the low end, AH at the high end (only).
    slot = enc.LAYOFF
    low, low_joker, high, high_joker = slot, slot + 1, slot + 2, slot + 3
    assert str(enc.action_to_move(game, low)) == "P2 layoff 2H 1"
    assert str(enc.action_to_move(game, low_joker)) == "P2 layoff JK=2H 1"
    assert str(enc.action_to_move(game, high)) == "P2 layoff AH 1"
    assert str(enc.action_to_move(game, high_joker)) == "P2 layoff JK=AH 1"
    with pytest.raises(ValueError):
        enc.action_to_move(game, slot + 4)  # a group kind on a run
    with pytest.raises(ValueError):
        enc.action_to_move(game, slot + enc.LAYOFF_KINDS)  # there is no meld 2


def test_an_ace_that_fits_both_ends_says_which() -> None:
    game = position(
        ["3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D 3D", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AD"],
        "AH",
        "P2 draw\nP2 meld 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    )
    low = enc.action_to_move(game, enc.LAYOFF)
    high = enc.action_to_move(game, enc.LAYOFF + 2)
    assert (str(low), str(high)) == ("P2 layoff AH 1 low", "P2 layoff AH 1 high")
    assert enc.move_to_action(game, low) == enc.LAYOFF
    assert enc.move_to_action(game, high) == enc.LAYOFF + 2


def test_groups_and_runs_with_jokers_have_their_own_actions() -> None:
    game = Game.new(2, seed=0)
    for text in ("P2 meld 9S 9D JK=9", "P2 meld 9C JK=9 JK=9", "P2 meld 6H 7H JK=8H"):
        move = Move.parse(text)
        canon = move._replace(cards=analyze_meld(move.cards)[4])
        action = enc.move_to_action(game, canon)
        assert action is not None
        assert enc.action_to_move(game, action, seat=1) == canon
    long_run = Move.parse("P2 meld 4H 5H 6H 7H")
    assert enc.move_to_action(game, long_run) is None


# --- new runs of 4 or more cards, and the card that may not be discarded -----------------------

STUCK_HANDS = ["2C 2D 2H 2S 4C 4D 4S 5C 5D 5S 6C 6D 6S", "4H 5H 6H 7H 9C 9D 9S QC QD QS 3C 3D 3S"]
MELD_THE_REST = "P2 meld 9C 9D 9S\nP2 meld QC QD QS\nP2 meld 3C 3D 3S"


def test_a_run_that_goes_out_through_the_card_just_taken_decomposes() -> None:
    # P2 takes the top discard 8H (so may not discard it) and holds 4H … 8H: the 5-card run goes
    # out. Its decomposition keeps 8H, which always fits the run, for last.
    game = position(STUCK_HANDS, "8H", "P2 take 1\n" + MELD_THE_REST)
    assert game.no_discard == parse_card("8H")
    run = Move.parse("P2 meld 4H 5H 6H 7H 8H")
    assert run in game.legal_moves()
    assert enc.move_to_action(game, run) is None
    assert [enc.action_str(a) for a in enc.decompose(game, run)] == [
        "meld 4H 5H 6H",
        "layoff natural high end of meld 4",
        "layoff natural high end of meld 4",
    ]
    assert check_decomposition(game, run) == "ok"


def test_a_run_that_would_leave_the_card_just_taken_stuck_has_no_way_in() -> None:
    # Holding 4H … 7H and KC just taken: melding the 4 hearts would leave KC, which may not be
    # discarded and fits nowhere, so the engine refuses it; the 3-card run is legal, but then
    # laying off 7H is refused for the same reason, and the mask agrees at every step.
    game = position(STUCK_HANDS, "KC", "P2 take 1\n" + MELD_THE_REST)
    assert Move.parse("P2 meld 4H 5H 6H 7H") not in game.legal_moves()
    meld = enc.move_to_action(game, Move.parse("P2 meld 4H 5H 6H"))
    assert meld in enc.legal_actions(game)
    game.play(enc.action_to_move(game, meld))
    layoff_7h = enc.LAYOFF + enc.LAYOFF_KINDS * 3 + 2
    assert str(enc.action_to_move(game, layoff_7h)) == "P2 layoff 7H 4"
    assert layoff_7h not in enc.legal_actions(game)
    assert enc.DISCARD + parse_card("7H") in enc.legal_actions(game)


def test_the_card_that_must_be_used_is_in_the_first_three() -> None:
    game = position(
        ["2C 2D 2S 3C 3D 3S 5C 5D 5S 6C 6D 6S KD", "4H 5H 7H 8H 9C 9D 9S QC QD QS 3H AC AD"],
        "6H",
        "P2 take 1",
        pickup="must-meld",
    )
    run = Move.parse("P2 meld 4H 5H 6H 7H 8H")
    assert run in game.legal_moves()
    actions = enc.decompose(game, run)
    assert enc.action_str(actions[0]) == "meld 4H 5H 6H"
    assert check_decomposition(game, run) == "ok"


def test_decomposition_with_jokers_keeps_a_natural_in_the_first_three() -> None:
    game = position(
        ["2C 2D 2S 3C 3D 3S 5C 5D 5S 6C 6D 6S KD", "JK JK 5H 7H 9C 9D 9S QC QD QS 3H AC AD"],
        "KH",
        "P2 draw",
    )
    for text, first in (
        ("P2 meld JK=3H JK=4H 5H 7H", None),  # not a run: 6H is missing
        ("P2 meld JK=3H JK=4H 5H JK=6H", None),  # three jokers: there are only two
        ("P2 meld JK=4H 5H JK=6H 7H", "meld JK=4H 5H JK=6H"),
        ("P2 meld 5H JK=6H 7H JK=8H", "meld 5H JK=6H 7H"),
        ("P2 meld JK=2H JK=3H JK=4H 5H", None),  # three jokers
        ("P2 meld JK=3H JK=4H 5H JK=6H 7H", None),
    ):
        move = Move.parse(text)
        try:
            move = move._replace(cards=analyze_meld(move.cards)[4])
        except IllegalMove:
            assert first is None
            continue
        if first is None:
            assert move not in game.legal_moves(), text
            continue
        assert move in game.legal_moves(), text
        assert enc.action_str(enc.decompose(game, move)[0]) == first
        assert check_decomposition(game, move) == "ok"


def test_new_meld_pickup_allows_layoffs_once_the_card_taken_is_melded() -> None:
    # The decomposition of a long run needs it (it once failed: the engine kept the obligation
    # "new meld only" after the card taken was melded, and refused every lay-off).
    game = position(
        ["2C 2D 2S 3C 3D 3S 5C 5D 5S 6C 6D 6S KD", "4H 5H 7H 8H 9C 9D 9S QC QD QS 3H AC AD"],
        "6H",
        "P2 take 1\nP2 meld 4H 5H 6H",
        pickup="new-meld",
    )
    assert Move.parse("P2 layoff 7H 1") in game.legal_moves()


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_the_compiled_helpers_give_the_encodings_actions_and_moves(
    config: tuple[int, Rules],
) -> None:
    """envs/tracking.py (compiled in the compiled build) works each action out from its move's
    verb and numbers: in every visited position it gives exactly encoding.legal_actions, and
    every action below LAYOFF decodes to encoding.action_to_move's move."""
    from rummy500.envs.tracking import action_move, game_actions

    players, rules = config
    for game in random_positions(players, rules, seed=7 * players, hands=2):
        assert game_actions(game) == enc.legal_actions(game)
        for action in (0, 1, 2, enc.TAKE, enc.RUMMY + 4, enc.DISCARD + 52, enc.RUN - 1):
            assert action_move(game, action) == enc.action_to_move(game, action)
        assert action_move(game, enc.LAYOFF) is None
