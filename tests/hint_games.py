"""Games in which one seat plays every move as the hint says, then reviewed: how many of its
decisions the review tags worse than good (it should be none: the hint and the review judge
with the same evaluator on the same deals), and every claim of the sentences said on the way
(the hints', and the review's of the other seats' moves) checked against the game.

The tests run a small game (``tests/test_hint_review.py``); the issue's figures (20 games of 2
and 4 players, 200 reviewed decisions' reasons) come from running this module::

    PYTHONPATH=src python -m tests.hint_games --games 10 --players 2 --players 4
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rummy500.bots import make_bot
from rummy500.bots.hint import Suggestion, explain_hint, suggest
from rummy500.bots.why import Explanation
from rummy500.engine import Game, Move, Rules
from rummy500.notation import GameRecord
from rummy500.review import Judgement, explain_decision, judge_game
from tests.bots.claims import check

#: The seat that follows the hints.
HINTED = 0


@dataclass
class HintedGame:
    """A game played, the hinted seat's positions by (hand, index in the hand), its hints."""

    game: Game
    positions: dict[tuple[int, int], Game] = field(default_factory=dict)
    hints: dict[tuple[int, int], Suggestion] = field(default_factory=dict)


def play_by_hints(
    players: int,
    seed: int,
    *,
    hands: int = 2,
    samples: int = 24,
    candidates: int = 5,
    opponents: str = "medium",
    hint: Callable[..., Suggestion] = suggest,
) -> HintedGame:
    """A game of ``players`` (at most ``hands`` hands) in which :data:`HINTED` plays the hint
    at every decision and the others are computer players of level ``opponents``."""
    game = Game.new(players, Rules(), seed=seed)
    bots = {s: make_bot(opponents, seed=seed * 10 + s) for s in range(players) if s != HINTED}
    played = HintedGame(game)
    while True:
        ply = 0
        while not game.is_hand_over():
            seat = game.to_act
            assert seat is not None
            legal = game.legal_moves()
            obs = game.observation(seat)
            if seat == HINTED and len(legal) > 1:
                found = hint(obs, legal, samples=samples, candidates=candidates)
                played.positions[game.hand_number, ply] = game.clone()
                played.hints[game.hand_number, ply] = found
                move: Move = found.move
            else:
                move = bots[seat].choose(obs, legal) if seat != HINTED else legal[0]
            game.play(move)
            ply += 1
        if game.is_game_over() or game.hand_number >= hands:
            return played
        game.deal()


def positions_of(record: GameRecord, seat: int) -> Iterator[tuple[int, int, Game]]:
    """``(hand, index, game)`` before every move of ``seat`` that it made at its turn."""
    for position in record.positions():
        move = position.move
        if move is not None and move.seat == seat and position.game.to_act == seat:
            yield position.hand, position.ply, position.game


@dataclass
class Tally:
    games: int = 0
    decisions: int = 0
    #: the hinted seat's decisions tagged worse than good: (seed, hand, index, tag, loss, margin)
    tagged: list[tuple[int, int, int, str, float, float]] = field(default_factory=list)
    #: sentences whose claims were checked, and the false claims found
    sentences: int = 0
    review_sentences: int = 0
    false: list[str] = field(default_factory=list)
    seconds: float = 0.0


def check_game(
    played: HintedGame,
    seed: int,
    tally: Tally,
    *,
    samples: int = 24,
    candidates: int = 5,
    refine: int = 48,
    other_seat: int | None = 1,
) -> None:
    """Review the hinted seat and add to ``tally`` its tags and the claims of its hints' and
    its review's sentences; with ``other_seat``, that seat's review's too (more sentences)."""
    options = {"samples": samples, "candidates": candidates, "refine": refine}
    judged = judge_game(played.game, HINTED, **options)
    tally.games += 1
    tally.decisions += len(judged.decisions)
    for j in judged.decisions:
        if j.tag != "good":
            tally.tagged.append(
                (seed, j.hand, j.index, j.tag, round(j.loss, 1), round(j.margin, 1))
            )
    for key, hint in played.hints.items():
        game = played.positions[key]
        said = explain_hint(game.observation(HINTED), hint)
        problems = check(game, HINTED, said, evaluation=hint.evaluation, gain=_hint_gain(hint))
        tally.sentences += 1
        tally.false.extend(f"game {seed} hint {key}: {p}" for p in problems)
    _check_judged(GameRecord.from_game(played.game), HINTED, judged.decisions, seed, tally)
    if other_seat is not None:
        check_reviews(played.game, [other_seat], seed, tally, **options)


def check_reviews(
    game: Game | GameRecord, seats: Sequence[int], seed: int, tally: Tally, **options: Any
) -> None:
    """Review ``seats`` of ``game`` (``options``: :func:`judge_game`'s) and check the claims of
    every sentence the reviews say, or would say of a move that is not the best found."""
    record = game if isinstance(game, GameRecord) else GameRecord.from_game(game)
    for seat in seats:
        _check_judged(record, seat, judge_game(record, seat, **options).decisions, seed, tally)


def _check_judged(
    record: GameRecord, seat: int, judged: Sequence[Judgement], seed: int, tally: Tally
) -> None:
    at = {(j.hand, j.index): j for j in judged}
    for hand, index, game in positions_of(record, seat):
        judgement = at.get((hand, index))
        if judgement is None:
            continue
        for explanation in _explanations(game, seat, judgement):
            problems = check(
                game,
                seat,
                explanation,
                evaluation=judgement.evaluation,
                gain=judgement.loss if judgement.tag != "good" else _gain(judgement),
            )
            tally.review_sentences += 1
            tally.false.extend(f"game {seed} review {seat} {hand}:{index}: {p}" for p in problems)


def _hint_gain(hint: Suggestion) -> float | None:
    if hint.instead is None or hint.evaluation is None:
        return None
    mine, other = hint.evaluation.value(hint.move), hint.evaluation.value(hint.instead)
    assert mine is not None and other is not None
    return mine.net - other.net


def _gain(judgement: Judgement) -> float:
    mine = judgement.evaluation.value(judgement.played)
    assert mine is not None
    return mine.loss


def _explanations(game: Game, seat: int, judgement: Judgement) -> list[Explanation]:
    """The review's sentence for the decision, as said (tagged) or as it would be said had the
    move been tagged (any move played that is not the best found): more claims to check."""
    obs = game.observation(seat)
    said = explain_decision(obs, judgement)
    if said is not None:
        return [said]
    if judgement.played == judgement.evaluation.best.move:
        return []
    tagged = explain_decision(obs, replace(judgement, tag="mistake", loss=_gain(judgement)))
    assert tagged is not None
    return [tagged]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games per number of players")
    parser.add_argument("--players", type=int, action="append", help="2, 4, … (repeatable)")
    parser.add_argument("--hands", type=int, default=2, help="hands a game at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=24)
    args = parser.parse_args()
    for players in args.players or [2]:
        tally = Tally()
        start = time.perf_counter()
        for k in range(args.games):
            seed = args.seed + k
            played = play_by_hints(players, seed, hands=args.hands, samples=args.samples)
            check_game(played, seed, tally, samples=args.samples)
            print(
                json.dumps(
                    {
                        "players": players,
                        "game": seed,
                        "decisions": tally.decisions,
                        "tagged": len(tally.tagged),
                        "sentences": tally.sentences + tally.review_sentences,
                        "false": len(tally.false),
                    }
                ),
                flush=True,
            )
        tally.seconds = time.perf_counter() - start
        print(json.dumps({"players": players, **tally.__dict__}, default=str), flush=True)


if __name__ == "__main__":
    main()
