"""The core API a library user meets: legal moves that cannot be corrupted, undo, moves read in
context, the call window and obligation as values, reasons as data, a game that prints."""

from __future__ import annotations

import pickle
import random

import pytest

from rummy500 import i18n
from rummy500.engine import (
    AmbiguousMoveError,
    Game,
    IllegalMove,
    InvalidMoveError,
    MoveError,
    NotationError,
    Observation,
    Phase,
    RefusedMove,
    Rules,
    card_str,
    parse_card,
    parse_seat,
    seat_label,
    unseen_cards,
)
from rummy500.engine.phases import ObligationKind
from tests.engine.positions import OPTION_VALUES, play, position, rummy_call_window

P1_CLUBS = "2C 3C 4C 5C 6C 7C 8C"
P3_MIXED = "TS JS QD 3S 4S 5S 7D"


def p2_drew(p2: str, draw: str = "TD") -> Game:
    """P2 holds ``p2`` and has drawn ``draw`` (3 players, P1 deals, the 8D turned up)."""
    game = position([P1_CLUBS, p2, P3_MIXED], "8D", draw)
    game.play("P2 draw")
    return game


# --- a sound surface --------------------------------------------------------------------------


def test_legal_moves_cannot_be_changed_by_the_caller() -> None:
    game = Game.new(2, seed=3)
    legal = game.legal_moves()
    assert isinstance(legal, tuple)
    with pytest.raises(AttributeError):
        legal.append(legal[0])  # type: ignore[attr-defined]
    copy = game.clone()
    copy.play(copy.legal_moves()[0])
    assert game.legal_moves() == legal


def test_phases_are_an_enum_that_compares_with_strings() -> None:
    game = Game.new(2, seed=3)
    assert game.phase is Phase.DRAW and game.phase == "draw"
    assert Game.from_json(game.to_json()).phase is Phase.DRAW


@pytest.mark.parametrize("players", [2, 5])
def test_one_card_count_is_the_count_of_the_copied_counts(players: int) -> None:
    """hand_count/known_count (what the environment's tracker reads a card at a time) say
    what hand_counts/known_counts say, at every step of random games with two decks and
    jokers (takes make cards known, melds and discards unknown them)."""
    rng = random.Random(players)
    game = Game.new(players, Rules(), seed=players)
    for _ in range(400):
        legal = game.legal_moves()
        if not legal:
            game.deal()
            continue
        for seat in range(players):
            hand, known = game.hand_counts(seat), game.known_counts(seat)
            assert [game.hand_count(seat, c) for c in range(53)] == list(hand)
            assert [game.known_count(seat, c) for c in range(53)] == list(known)
        game.play(legal[rng.randrange(len(legal))])


# --- undo -------------------------------------------------------------------------------------


def random_rules(rng: random.Random) -> Rules:
    options = {k.replace("_", "-"): rng.choice(v) for k, v in OPTION_VALUES.items()}
    return Rules().with_options({**options, "target": "150"})


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_undo_restores_the_game_exactly_after_every_kind_of_move(players: int) -> None:
    rng = random.Random(players)
    undone = set()
    for game_number in range(3):
        game = Game.new(players, random_rules(rng), seed=game_number, max_moves_per_hand=300)
        while not game.is_game_over() and len(undone) < 12:
            if game.is_hand_over():
                game.deal()
                continue
            before = game.to_json()
            move = rng.choice(game.legal_moves())
            game.play(move)
            after = game.to_json()
            if rng.random() < 0.25 or game.is_hand_over():
                assert game.undo() == move
                assert game.to_json() == before, f"undo of {move} did not restore the game"
                game.play(move)
                assert game.to_json() == after
                undone.add(move.verb)
    assert {"draw", "discard", "meld"} <= undone


def test_undo_right_after_the_deal_is_refused_and_changes_nothing() -> None:
    game = Game.new(2, seed=1)
    before = game.to_json()
    with pytest.raises(IllegalMove) as refused:
        game.undo()
    assert refused.value.code == "nothing_to_undo"
    assert game.to_json() == before


def test_can_take_back_takes_melds_and_takes_back_until_the_discard() -> None:
    game = position([P1_CLUBS, "5H 6H 9S 9D KC 4D 2S", P3_MIXED], "4H")
    assert not game.can_take_back(1)
    game.play("P2 take 1")
    assert game.can_take_back(1) and game.can_take_back() and not game.can_take_back(0)
    game.play("P2 meld 4H 5H 6H")
    assert game.can_take_back(1)
    assert game.peek() is not None and str(game.peek()) == "P2 meld 4H 5H 6H"
    game.undo()
    game.undo()
    assert game.phase == Phase.DRAW and not game.can_take_back(1)
    game.play("P2 draw")
    assert not game.can_take_back(1), "a card drawn from the stock has been seen"
    game.play("P2 discard KC")
    assert not game.can_take_back(1)
    assert game.move_stack[-1].verb == "discard"


def test_undo_takes_back_what_a_player_may_not() -> None:
    # The library's undo() takes back any move of the hand; can_take_back() is the players' rule.
    game = position([P1_CLUBS, "5H 6H 9S 9D KC 4D 2S", P3_MIXED], "4H")
    before = game.to_json()
    game.play("P2 draw")
    assert not game.can_take_back(1), "a card drawn from the stock has been seen"
    assert str(game.undo()) == "P2 draw"
    assert game.to_json() == before
    game.play("P2 draw")
    game.play("P2 discard KC")
    assert not game.can_take_back(1) and not game.can_take_back(2)
    assert str(game.undo()) == "P2 discard KC"
    assert game.to_act == 1 and game.phase == Phase.PLAY and not game.can_take_back(1)


def test_seats_are_numbers_from_0_and_labels_from_p1() -> None:
    game = Game.new(3, seed=4)
    assert [seat_label(s) for s in range(game.players)] == ["P1", "P2", "P3"]
    assert [parse_seat(seat_label(s), game.players) for s in range(3)] == [0, 1, 2]
    assert parse_seat(" p2 ") == 1
    move = game.legal_moves()[0]
    assert str(move).startswith(seat_label(move.seat) + " ")
    assert parse_seat(str(move).split()[0]) == move.seat == game.to_act
    with pytest.raises(NotationError, match=r"P4.*P1 to P3"):
        parse_seat("P4", game.players)
    for label in ("P0", "0", "1", "seat 1", ""):
        with pytest.raises(NotationError):
            parse_seat(label)
    with pytest.raises(ValueError, match="counted from 0"):
        seat_label(-1)


def test_no_undo_of_a_rummy_call_nor_of_a_move_in_a_call_window() -> None:
    # P3 discards the 8H, which fits P2's run: a call window opens, P1 asked first.
    game = rummy_call_window()
    assert game.phase == Phase.CALL
    window = game.call_window
    assert window is not None and window.discarder == 2 and window.seats == (0, 1)
    assert window.depths == (1,) and game.callable_depths(0) == (1,)
    assert game.callable_depths(2) == ()
    game.play("P1 rummy 1")
    assert not game.can_take_back(0), "a Rummy call cannot be taken back"
    obligation = game.obligation
    assert obligation is not None and obligation.card == parse_card("8H")
    assert obligation.kind == ObligationKind.MELD
    game.play("P1 layoff 8H 1")
    assert game.can_take_back(0) and game.obligation is None


def test_undo_refusal_says_why_as_a_reason_code() -> None:
    game = position([P1_CLUBS, "5H 6H 9S 9D KC 4D 2S", P3_MIXED], "4H")
    names = ["Ann", "Béla", "Khamla"]
    refusal = game.undo_refusal(1)
    assert refusal is not None and refusal.code == "nothing_this_turn"
    refusal = game.undo_refusal(0)
    assert refusal is not None and refusal.code == "not_your_turn"
    assert refusal.text(names) == "it is Béla's turn, not Ann's"
    game.play("P2 draw")
    refusal = game.undo_refusal()
    assert refusal is not None and refusal.code == "draw_seen" and "stock" in str(refusal)
    assert not game.can_take_back(1)
    game.play("P2 discard KC")
    refusal = game.undo_refusal(1)
    assert refusal is not None and refusal.code == "not_your_turn"
    before = game.to_json()
    game.play("P3 take 1")
    assert game.undo_refusal(2) is None and game.can_take_back(2)
    assert game.to_json() != before


def test_undo_refusal_of_a_rummy_call_and_of_a_take_in_a_call_window() -> None:
    # P3 discards the 8H, which fits P2's run: a call window opens, P1 asked first.
    game = rummy_call_window()
    for seat in range(3):  # a call window: nobody has a move of this turn to take back
        refusal = game.undo_refusal(seat)
        assert refusal is not None and refusal.code == "nothing_this_turn"
    taken = game.clone()
    taken.play("P1 take 1")  # the next player's take closes the window
    refusal = taken.undo_refusal(0)
    assert refusal is not None and refusal.code == "window_final"
    game.play("P1 rummy 1")
    refusal = game.undo_refusal(0)
    assert refusal is not None and refusal.code == "rummy_final"
    game.play("P1 layoff 8H 1")
    assert game.undo_refusal(0) is None


def test_undo_refusal_after_the_hand() -> None:
    game = Game.new(2, seed=3, max_moves_per_hand=40)
    while not game.is_hand_over():
        game.play(game.legal_moves()[0])
    refusal = game.undo_refusal(0)
    assert refusal is not None and refusal.code in ("hand_over", "game_over")


# --- moves in context -------------------------------------------------------------------------


def test_parse_move_fills_in_the_seat_and_canonical_order() -> None:
    game = p2_drew("4H 5H 6H 9S 9D KC 2D")
    assert str(game.parse_move("meld 6H 4H 5H")) == "P2 meld 4H 5H 6H"
    assert str(game.parse_move("P2 discard KC")) == "P2 discard KC"


def test_parse_move_reads_an_undeclared_joker_when_only_one_reading_is_legal() -> None:
    game = p2_drew("9H 9C JK 2S KC 4D 6S")
    assert str(game.parse_move("meld 9H 9C JK")) == "P2 meld 9C 9H JK=9"


def test_parse_move_lists_the_readings_of_an_ambiguous_joker() -> None:
    game = p2_drew("9H TH JK 2S KC 4D 6S")
    before = game.to_json()
    with pytest.raises(AmbiguousMoveError) as refused:
        game.parse_move("meld 9H TH JK")
    readings = {str(m) for m in refused.value.readings}
    assert readings == {"P2 meld JK=8H 9H TH", "P2 meld 9H TH JK=JH"}
    assert refused.value.code == "ambiguous_move" and isinstance(refused.value, MoveError)
    assert game.to_json() == before


def test_parse_move_errors_are_typed_and_change_nothing() -> None:
    game = p2_drew("4H 5H 6H 9S 9D KC 2D")
    before = game.to_json()
    with pytest.raises(InvalidMoveError):
        game.parse_move("fly away")
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("discard AS")
    assert refused.value.code == "card_not_held"
    assert refused.value.to_dict()["params"] == {"card": "AS"}
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("P3 draw")
    assert refused.value.code == "not_your_turn"
    assert refused.value.text(["Ann", "Béla", "Khamla"]) == "it is Béla's turn, not Khamla's"
    assert game.to_json() == before


def test_parse_move_says_what_is_wrong_with_a_meld_whatever_its_jokers_stand_for() -> None:
    game = p2_drew("2S 3D JK KC 9H 9C 4D")
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("meld 2S 3D JK")
    assert refused.value.code == "not_a_meld"
    assert refused.value.to_dict()["params"] == {"cards": ["2S", "3D", "JK"]}
    assert str(refused.value).startswith("2♠ 3♦ Joker is neither a run")
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("meld 9H 9C")
    assert refused.value.code == "meld_too_short"


# Two melds on the table: meld 1 a full group of nines, meld 2 a run of hearts.
TWO_MELDS = [
    "2C 3C 4C 5C 6C 7C 8C 2S 3S 4S 5S 6S 7S",
    "9S 9D 9H 9C 5H 6H 7H 8H 6D JK 4H KC 2D",
]


def two_melds() -> Game:
    return position(TWO_MELDS, "QD", "TD", moves="P2 draw\nP2 meld 9S 9D 9H 9C\nP2 meld 5H 6H 7H")


def test_parse_move_reads_a_lay_off_without_its_meld() -> None:
    game = two_melds()
    before = game.to_json()
    assert str(game.parse_move("layoff 8H")) == "P2 layoff 8H 2"
    with pytest.raises(AmbiguousMoveError) as refused:
        game.parse_move("layoff JK")
    assert {str(m) for m in refused.value.readings} == {"P2 layoff JK=4H 2", "P2 layoff JK=8H 2"}
    assert game.to_json() == before


def test_a_lay_off_that_fits_no_meld_says_so() -> None:
    game = two_melds()
    before = game.to_json()
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("layoff 6D")  # not "meld 1 is full"
    assert refused.value.code == "fits_no_meld"
    assert refused.value.to_dict()["params"] == {"card": "6D"}
    assert str(refused.value) == "the 6♦ does not fit any meld on the table"
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("layoff 6D 1")  # a meld named: its own reason
    assert refused.value.code == "group_full"
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("layoff JK 1")
    assert refused.value.code == "group_full"
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("P1 layoff 6D")  # the turn's reason first
    assert refused.value.code == "not_your_turn"
    assert game.to_json() == before
    # one meld on the table: the reason of that meld
    one = position(TWO_MELDS, "QD", "TD", moves="P2 draw\nP2 meld 5H 6H 7H")
    with pytest.raises(IllegalMove) as refused:
        one.parse_move("layoff 6D")
    assert refused.value.code == "run_wrong_suit"


def test_reasons_name_cards_with_suit_symbols() -> None:
    game = p2_drew("4H 5H 6H 9S 9D KC 2D")
    with pytest.raises(IllegalMove) as refused:
        game.play("P2 meld 4H 5H 9S")
    assert refused.value.code == "not_a_meld"
    assert "4♥ 5♥ 9♠" in str(refused.value)


@pytest.mark.parametrize(
    ("language", "joker"), [("en", "Joker="), ("hu", "Joker="), ("lo", "ໂຈກເກີ=")]
)
def test_reasons_name_a_joker_on_the_table_in_words(language: str, joker: str) -> None:
    """A joker standing for a card is named as the browser names it (``Joker=9♠``), not in the
    terminal table's compact ``*9♠``, in every shipped language."""
    game = p2_drew("4H 5H 6H 9S 9D KC JK")
    with pytest.raises(IllegalMove) as refused:
        game.play("P2 meld JK=3H 5H 9S")
    assert refused.value.code == "not_a_meld"
    with i18n.use_language(language):
        cards = str(refused.value)
    game.play("P2 meld 4H 5H 6H")
    with pytest.raises(IllegalMove) as refused:
        game.play("P2 layoff JK=9S 1")
    assert refused.value.code == "run_wrong_suit"
    with i18n.use_language(language):
        played = str(refused.value)
    assert f"5♥ 9♠ {joker}3♥" in cards and "*" not in cards, cards
    assert f"{joker}9♠" in played and "*" not in played, played
    if language == "en":
        assert played == "meld 1 is a run of another suit: Joker=9♠ does not fit"


@pytest.mark.parametrize(
    ("language", "held", "meld"),
    [
        ("en", "you do not have the Joker", "2♠ 3♦ Joker is neither a run"),
        ("hu", "nincs a kezedben ez a lap: Joker", "2♠ 3♦ Joker: ez se nem sor"),
        ("lo", "ເຈົ້າບໍ່ມີ ໂຈກເກີ", "2♠ 3♦ ໂຈກເກີ ບໍ່ແມ່ນທັງລຽງ"),
    ],
    ids=("en", "hu", "lo"),
)
def test_reasons_name_the_joker_itself_in_words(language: str, held: str, meld: str) -> None:
    """The joker in a hand, standing for nothing yet, is named as the browser names it
    (``Joker``), not in the hand row's compact ``JK``, in every shipped language."""
    game = p2_drew("4H 5H 6H 9S 9D KC 2D")
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("discard JK")
    assert refused.value.code == "card_not_held"
    with i18n.use_language(language):
        assert str(refused.value) == held
    game = p2_drew("2S 3D JK KC 9H 9C 4D")
    with pytest.raises(IllegalMove) as refused:
        game.parse_move("meld 2S 3D JK")
    assert refused.value.code == "not_a_meld"
    with i18n.use_language(language):
        assert str(refused.value).startswith(meld)


# --- errors -----------------------------------------------------------------------------------


def test_illegal_move_takes_a_reason_code_only() -> None:
    assert IllegalMove("card_not_held", card=parse_card("AS")).code == "card_not_held"
    with pytest.raises(ValueError, match="reason code"):
        IllegalMove("you may not do that here")
    refused = RefusedMove("undo_limit", "at most 5 moves may be taken back in one turn")
    assert isinstance(refused, MoveError) and not isinstance(refused, IllegalMove)
    assert refused.code == "undo_limit" and refused.text(["Ann"]) == str(refused)


def test_an_ambiguous_move_is_a_sibling_of_an_illegal_one() -> None:
    assert issubclass(AmbiguousMoveError, MoveError)
    assert not issubclass(AmbiguousMoveError, IllegalMove)
    assert not issubclass(IllegalMove, AmbiguousMoveError)


def test_move_errors_cross_process_boundaries() -> None:
    game = p2_drew("9H TH JK 2S KC 4D 6S")
    errors: list[MoveError] = [
        IllegalMove("card_not_held", card=parse_card("AS")),
        RefusedMove("already_answered", "you have already answered this Rummy call"),
        InvalidMoveError("not a move"),
    ]
    with pytest.raises(AmbiguousMoveError) as ambiguous:
        game.parse_move("meld 9H TH JK")
    errors.append(ambiguous.value)
    for error in errors:
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert (copy.code, copy.params, str(copy)) == (error.code, error.params, str(error))
    assert pickle.loads(pickle.dumps(ambiguous.value)).readings == ambiguous.value.readings


# --- what front ends ask ----------------------------------------------------------------------


def test_playable_and_known_cards() -> None:
    game = p2_drew("4H 5H 6H 9S 9D KC 2D", draw="9H")
    assert {card_str(c) for c in game.playable_cards(1)} == {"4H", "5H", "6H", "9S", "9D", "9H"}
    assert game.known_cards(1) == ()
    game2 = position([P1_CLUBS, "5H 6H 9S 9D KC 4D 2S", P3_MIXED], "4H")
    game2.play("P2 take 1")
    assert game2.known_cards(1) == (parse_card("4H"),)


def test_a_game_prints_as_a_table_and_hides_other_hands_from_a_seat() -> None:
    game = p2_drew("4H 5H 6H 9S 9D KC 2D")
    play(game, "P2 meld 4H 5H 6H")
    assert repr(game).startswith("<Game 3 players, hand 1, play, P2 to act")
    text = str(game)
    assert "meld 1: 4♥ 5♥ 6♥" in text and "T♦" not in text and "10♦" in text
    seen = game.render(seat=0)
    assert "2♣" in seen and "K♣" not in seen, "P2's cards are not P1's to see"


# --- observations -----------------------------------------------------------------------------


def test_from_observation_deals_a_game_the_seat_cannot_tell_from_the_real_one() -> None:
    game = Game.new(4, seed=11)
    rng = random.Random(5)
    for _i in range(30):
        game.play(rng.choice(game.legal_moves()))
    obs = game.observation(2)
    assert isinstance(obs, Observation)
    sampled = Game.from_observation(obs, random.Random(1))
    assert sampled.observation(2) == obs


def test_the_former_names_are_gone_before_the_first_release() -> None:
    """One name for each idea (issue 33): nothing has been released with the older names."""
    import rummy500
    import rummy500.engine
    import rummy500.review

    assert not hasattr(Game, "can_undo"), "Game.can_take_back"
    assert not hasattr(Rules, "from_command_line"), "Rules.from_spec"
    for module in (rummy500, rummy500.engine):
        assert not hasattr(module, "sample_state"), "Game.from_observation"
        assert "sample_state" not in module.__all__
    assert not hasattr(rummy500.review, "replay_record"), "GameRecord.positions"


def test_from_observation_deals_a_chosen_deal_and_refuses_one_that_is_not_the_unseen_cards() -> (
    None
):
    game = Game.new(3, seed=12)
    rng = random.Random(6)
    for _i in range(20):
        game.play(rng.choice(game.legal_moves()))
    obs = game.observation(0)
    unseen = unseen_cards(obs)
    order = list(reversed(unseen))
    dealt = Game.from_observation(obs, random.Random(1), deal=order)
    assert dealt.observation(0) == obs
    need = [obs.hand_sizes[s] - len(obs.known[s]) for s in (1, 2)]
    for s, start in ((1, 0), (2, need[0])):
        assert sorted(dealt.hand(s)) == sorted([*obs.known[s], *order[start : start + need[s - 1]]])
    assert dealt.stock == order[sum(need) :]
    before = obs
    own = obs.hand[0]  # a card the seat holds, not an unseen one
    for bad in (order[1:], [*order, order[0]], [*order[:-1], own]):
        with pytest.raises(ValueError, match="each unseen card once"):
            Game.from_observation(obs, random.Random(1), deal=bad)
    assert game.observation(0) == before
