"""The scripted game of the browser tests: a seed, and what the two people at the table play.

The table has three seats: P1 and P2 are people (two browsers), P3 is an easy computer player.
The server deals from the table's seed and a computer player's every decision is seeded from the
table's seed and version (``rummy500.server.bot_pool``), so with a fixed seed and the people's
moves fixed, the whole game is fixed. :func:`simulate` replays the server's order of things with
the engine alone (a move per version, call windows asked nearest seat first, computer players
started as the server starts them) and the people's policy below; :func:`find_scenario` looks
for a seed whose first hand shows everything the browser test must click through: a take from
the discard pile with a meld, a lay-off, a Rummy call made by a person, and the game over after
one hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rummy500.engine import CALL, DRAW, GAME_OVER, HAND_OVER, PLAY, Game, Move, Rules
from rummy500.server.bot_pool import choose_move, decision_seed

#: The seeds tried first: the one the tests were written with, then the ones after it.
SEED = 15
SEARCH = 400
PLAYERS = 3
PEOPLE = (0, 1)  # P1 and P2
BOT_LEVEL = "easy"
RULES = "target=40"
#: The most moves of the people a scenario may have (each is a few clicks in a browser).
MAX_PEOPLE_MOVES = 30

CARD_VALUES = {"A": 15, "T": 10, "J": 10, "Q": 10, "K": 10}


def card_value(card: str) -> int:
    if card.startswith("JK"):
        return 15
    return CARD_VALUES.get(card[0], int(card[0]) if card[0].isdigit() else 10)


def person_chooses(game: Game, legal: list[Move]) -> Move:
    """What a person at the scripted table plays: call Rummy when possible, take deep into the
    pile when possible, meld the longest meld, lay off, and discard the highest card."""
    by_verb: dict[str, list[Move]] = {}
    for move in legal:
        by_verb.setdefault(move.verb, []).append(move)
    if game.phase == CALL:
        calls = by_verb.get("rummy")
        return min(calls, key=lambda m: m.number) if calls else by_verb["pass"][0]
    if game.phase == DRAW:
        takes = [m for m in by_verb.get("take", []) if m.number >= 2]
        if takes:
            return min(takes, key=lambda m: m.number)
        if "draw" in by_verb:
            return by_verb["draw"][0]
        return legal[0]
    melds = by_verb.get("meld", [])
    natural = [m for m in melds if "JK" not in str(m)]
    if natural or melds:
        pool = natural or melds
        return max(pool, key=lambda m: (len(m.cards), str(m)))
    if by_verb.get("layoff"):
        return min(by_verb["layoff"], key=str)
    discards = by_verb.get("discard", [])
    if discards:
        return max(discards, key=lambda m: (card_value(str(m).split()[-1]), str(m)))
    return legal[0]


@dataclass
class Step:
    """One move of the game as the server stores it."""

    version: int  # the table's version once the move is stored
    move: str
    by: str  # "person", "bot" or "auto" (a pass the server makes for a seat that cannot call)


@dataclass
class Scenario:
    seed: int
    steps: list[Step] = field(default_factory=list)
    winner: str | None = None
    phase: str = ""

    def people_moves(self) -> list[str]:
        return [s.move for s in self.steps if s.by == "person"]

    def has(self, verb: str, seat: int | None = None, deep: bool = False) -> bool:
        for s in self.steps:
            m = Move.parse(s.move)
            if s.by != "person" or m.verb != verb or (seat is not None and m.seat != seat):
                continue
            if deep and m.number < 2:
                continue
            return True
        return False

    def shows_everything(self) -> bool:
        takes = [
            i
            for i, s in enumerate(self.steps)
            if s.by == "person" and Move.parse(s.move).verb == "take"
        ]
        melded_after_take = any(
            Move.parse(self.steps[i + 1].move).verb == "meld" for i in takes if i + 1 < len(self)
        )
        return (
            self.phase == GAME_OVER
            and melded_after_take
            and self.has("layoff")
            and self.has("rummy")
            and self.has("discard", 0)
            and self.has("discard", 1)
            and len(self.people_moves()) <= MAX_PEOPLE_MOVES
        )

    def __len__(self) -> int:
        return len(self.steps)


def simulate(seed: int, max_moves: int = 400) -> Scenario:
    """The first hand of the scripted table dealt from ``seed``, as the server plays it."""
    game = Game(PLAYERS, Rules.parse(RULES), seed=seed, max_moves_per_hand=1000)
    game.deal()
    version = 1
    scenario = Scenario(seed)

    def commit(move: Move, by: str) -> None:
        nonlocal version
        game.play(move)
        version += 1
        scenario.steps.append(Step(version, str(game.moves[-1]), by))

    while game.phase in (DRAW, PLAY, CALL) and len(scenario.steps) < max_moves:
        if game.phase == CALL:
            # who may call, with which moves: asked in order, each after the nearer ones passed
            callers: dict[int, list[Move]] = {}
            probe = game.clone()
            for seat in list(game.window):
                legal = probe.legal_moves()
                if any(m.verb == "rummy" for m in legal):
                    callers[seat] = list(legal)
                probe.play(Move(seat, "pass"))
                if probe.phase != CALL:
                    break
            answers: dict[int, Move] = {}
            while game.phase == CALL:
                seat = game.window[0]
                if seat in answers:
                    commit(answers.pop(seat), "person" if seat in PEOPLE else "bot")
                    continue
                if seat not in callers:
                    commit(Move(seat, "pass"), "auto")
                    continue
                for caller in callers:
                    if caller in answers or caller not in game.window:
                        continue
                    probe = game.clone()
                    while probe.phase == CALL and probe.window[0] != caller:
                        probe.play(Move(probe.window[0], "pass"))
                    if caller in PEOPLE:
                        answers[caller] = person_chooses(probe, callers[caller])
                    else:
                        answers[caller] = choose_move(
                            BOT_LEVEL,
                            decision_seed(seed, version, caller),
                            probe.observation(caller),
                            callers[caller],
                        )
            continue
        seat = game.to_act
        assert seat is not None
        legal = game.legal_moves()
        if seat in PEOPLE:
            commit(person_chooses(game, legal), "person")
        else:
            move = choose_move(
                BOT_LEVEL, decision_seed(seed, version, seat), game.observation(seat), legal
            )
            commit(move, "bot")
    scenario.phase = game.phase
    if game.phase in (HAND_OVER, GAME_OVER) and game.winner is not None:
        scenario.winner = f"P{game.winner + 1}"
    return scenario


def find_scenario(start: int = SEED, tries: int = SEARCH) -> Scenario:
    """The first seed from ``start`` whose game shows everything the browser test needs."""
    for seed in range(start, start + tries):
        scenario = simulate(seed)
        if scenario.shows_everything():
            return scenario
    raise LookupError(f"no seed in {start}..{start + tries - 1} gives the scripted game")


if __name__ == "__main__":
    found = find_scenario()
    print("seed", found.seed, "winner", found.winner, "people moves", len(found.people_moves()))
    for step in found.steps:
        print(f"{step.version:4d} {step.by:6s} {step.move}")
