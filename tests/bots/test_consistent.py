"""Deals that explain the last discard (the expert's ``explain`` option), and the top card of the
pile among a draw's candidates (``take_top``)."""

from __future__ import annotations

import random

import pytest

from rummy500.bots import IntermediatePolicy, make_bot
from rummy500.bots.consistent import consistent_state, discard_check, explains
from rummy500.bots.expert import ExpertBot
from rummy500.engine import Game, Rules

from .helpers import one_hand

POLICY = IntermediatePolicy()


def _positions(seeds: range, players: int = 2, rules: Rules | None = None):  # type: ignore[no-untyped-def]
    """Every position of intermediate self-play hands, with the game as it really is."""
    for seed in seeds:
        game = Game.new(players, rules or Rules(), seed=seed, max_moves_per_hand=1000)
        while not game.is_hand_over():
            seat = game.to_act
            assert seat is not None
            obs = game.observation(seat)
            yield game, obs
            game.play(POLICY.choose(obs, game.legal_moves()))


def test_the_real_hand_always_explains_an_intermediate_players_discard() -> None:
    rng = random.Random(1)
    checked = 0
    for players, rules in [(2, Rules()), (3, Rules(jokers="off")), (2, Rules(pickup="must-meld"))]:
        for game, obs in _positions(range(6), players, rules):
            check = discard_check(obs)
            if check is None:
                continue
            checked += 1
            assert check.seat != obs.seat and obs.discard_pile[-1] == check.card
            assert obs.history[check.before].verb == "discard"
            assert explains(game, obs, check, POLICY, rng)
    assert checked > 100


def test_a_random_deal_explains_the_discard_far_less_often() -> None:
    rng = random.Random(2)
    explained = tried = 0
    for _game, obs in _positions(range(6)):
        check = discard_check(obs)
        if check is None:
            continue
        for _k in range(5):
            tried += 1
            explained += explains(Game.from_observation(obs, rng), obs, check, POLICY, rng)
    assert tried > 100 and explained < 0.4 * tried
    # the deals the search takes explain it at least twice as often
    kept = [
        explains(consistent_state(obs, rng, POLICY, check), obs, check, POLICY, rng)
        for _game, obs in _positions(range(6))
        if (check := discard_check(obs)) is not None
    ]
    assert sum(kept) / len(kept) > 2 * explained / tried


def test_only_a_discard_followed_by_passes_and_stock_draws_is_checked() -> None:
    kinds = set()
    for _game, obs in _positions(range(4)):
        check = discard_check(obs)
        after = obs.history[check.before + 1 :] if check else ()
        if check is None:
            last = next((m for m in reversed(obs.history) if m.verb not in ("pass", "draw")), None)
            assert (
                last is None
                or last.verb != "discard"
                or last.seat == obs.seat
                or (obs.discard_pile and obs.discard_pile[-1] != last.cards[0])
            )
        else:
            assert all(m.verb in ("pass", "draw") for m in after)
            assert check.draws == tuple(
                sum(1 for m in after if m.verb == "draw" and m.seat == s) for s in range(2)
            )
            kinds.add(obs.phase)
    assert len(kinds) >= 2  # the draw and, after a stock draw, the play phase


def test_without_a_check_the_deal_is_the_plain_one() -> None:
    _game, obs = next(_positions(range(1)))
    a = consistent_state(obs, random.Random(5), POLICY, None)
    b = Game.from_observation(obs, random.Random(5))
    assert a.to_json() == b.to_json()


def test_the_expert_explaining_discards_plays_a_reproducible_hand() -> None:
    def play() -> list[str]:
        bot = make_bot("expert", seed=1, samples=3, candidates=3, explain=True)
        assert isinstance(bot, ExpertBot) and bot.explain
        return one_hand(bot, Rules(target=150), seed=5)

    first = play()
    assert len(first) > 10 and first == play()


def test_take_top_adds_the_top_card_to_a_draws_candidates() -> None:
    seen: list[list[str]] = []

    class Spy(ExpertBot):
        def search(self, obs, candidates):  # type: ignore[no-untyped-def]
            seen.append([str(m) for m in candidates])
            return candidates[0]

    added = 0
    for _game, obs in _positions(range(3)):
        if obs.phase != "draw":
            continue
        legal = _game.legal_moves()
        top = next(m for m in legal if m.verb == "take" and m.number == 1)
        ranked = POLICY.rank(obs, legal)[:4]
        seen.clear()
        Spy(seed=1, samples=2, candidates=4, take_top=True).choose(obs, legal)
        assert seen and seen[0][: len(ranked)] == [str(m) for m in ranked]
        assert str(top) in seen[0]
        added += top not in ranked
        seen.clear()
        Spy(seed=1, samples=2, candidates=4).choose(obs, legal)
        assert not seen or seen[0] == [str(m) for m in ranked]
    assert added > 10


def test_phases_limits_the_search_to_the_phases_named() -> None:
    searched: list[str] = []

    class Spy(ExpertBot):
        def search(self, obs, candidates):  # type: ignore[no-untyped-def]
            searched.append(str(obs.phase))
            return candidates[0]

    bot = Spy(seed=1, samples=2, candidates=4, phases="play+call")
    plain = Spy(seed=1, samples=2, candidates=4)
    draws = 0
    for game, obs in _positions(range(3)):
        legal = game.legal_moves()
        searched.clear()
        move = bot.choose(obs, legal)
        if obs.phase == "draw":
            assert not searched and move == POLICY.choose(obs, legal)
        searched.clear()
        plain.choose(obs, legal)
        draws += searched == ["draw"]
    assert draws > 5  # without the option the draws are searched
    with pytest.raises(ValueError, match="phases"):
        ExpertBot(samples=2, phases="draw+deal")
