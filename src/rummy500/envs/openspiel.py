"""Rummy 500 as an OpenSpiel game, ``python_rummy500``, registered with pyspiel on import.

>>> import pyspiel
>>> import rummy500.envs.openspiel
>>> game = pyspiel.load_game("python_rummy500", {"players": 3, "pickup": "must-meld"})
>>> game.num_players()
3

Chance is explicit: the deal is one chance node per card (each seat's cards in dealing order,
then the turned-up discard), and every draw from the stock is the player's ``draw`` action
followed by a chance node that picks the card among those left in the stock. Actions are the
flat encoding of :mod:`rummy500.envs.encoding`; observation tensors are the vectors of
:class:`~rummy500.envs.observation.ObservationLayout`.

Game parameters: ``players`` (2–8), the rule options ``jokers``, ``values``, ``pickup``,
``rummy``, ``going_out``, ``win``, ``target`` (values as in a record's ``rules:`` line, except
``values=5/10/15``: OpenSpiel's game strings cannot hold ``5-10-15``),
``hands`` (the game ends after this many hands, or earlier when the rules end it) and
``max_moves_per_hand`` (a hand reaching it is scored as if the stock ran out). The returns are
each seat's total score over the hands played.

Information states are perfect recall: the string lists everything the player has seen (its own
cards as dealt and drawn, the turned-up discards, every move in notation). The information-state
tensor is the observation vector followed by the cards each seat has discarded this hand (seats
relative to the player), a summary of the public history rather than all of it.

:mod:`rummy500.envs.openspiel_bots` has the built-in levels as OpenSpiel bots and OpenSpiel's
ISMCTS ready for ``evaluate_bots``; docs/encoding.md says which of OpenSpiel's bots work here.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from rummy500.engine import (
    Deal,
    Game,
    Move,
    Rules,
    card_str,
    card_values,
    decks_for,
    hand_size_for,
    seat_str,
)
from rummy500.engine.cards import NUM_CODES, cards_str, deck, played_str
from rummy500.envs.encoding import DRAW, NUM_ACTIONS, action_str, action_to_move
from rummy500.envs.observation import EncodedGame, ObservationLayout

__all__ = ["GAME_NAME", "Rummy500Game", "Rummy500State"]

GAME_NAME = "python_rummy500"

_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "jokers": "on",
    "values": "standard",
    "pickup": "top-free",
    "rummy": "pile",
    "going_out": "any",
    "win": "highest",
    "target": 500,
    "hands": 1,
    "max_moves_per_hand": 500,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Rummy 500",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class Rummy500Game(pyspiel.Game):
    """The game: its parameters and fixed facts (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        if params.get("values") == "5-10-15":
            params["values"] = "5/10/15"  # OpenSpiel's game strings cannot hold "5-10-15"
        values = {**_DEFAULTS, **params}
        players = int(values["players"])
        if not 2 <= players <= 8:
            raise ValueError(f"Rummy 500 is played by 2 to 8 players, not {players}")
        # the rule options are parameters of the same names (going_out for going-out)
        self.rules = Rules.from_spec(
            options={o: str(values[o.replace("-", "_")]).replace("/", "-") for o in Rules.OPTIONS}
        )
        self.players = players
        self.hands = int(values["hands"])
        self.max_moves_per_hand = int(values["max_moves_per_hand"])
        if self.hands < 1 or self.max_moves_per_hand < 1:
            raise ValueError("hands and max_moves_per_hand must be at least 1")
        self.layout = ObservationLayout.of(players)
        cards = len(deck(decks_for(players), self.rules.with_jokers))
        table = card_values(self.rules)
        most = sum(table[c] for c in deck(decks_for(players), self.rules.with_jokers))
        per_hand = cards + self.max_moves_per_hand  # chance nodes of deal and draws, moves
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CODES,
            num_players=players,
            min_utility=-float(most * self.hands),
            max_utility=float(most * self.hands),
            max_game_length=per_hand * self.hands,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> Rummy500State:
        """The state before the first card is dealt."""
        return Rummy500State(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Rummy500Observer:
        """An observer: perfect recall gives the information state, otherwise the observation."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return Rummy500Observer(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        )


class Rummy500State(pyspiel.State):
    """One position: the engine's game, plus the deal in progress and a pending stock draw."""

    def __init__(self, game: Rummy500Game) -> None:
        super().__init__(game)
        self._hands = game.hands
        self.table = EncodedGame(
            Game(game.players, game.rules, seed=0, max_moves_per_hand=game.max_moves_per_hand)
        )
        #: What the players have seen: ``(who, line)``, ``who`` = -1 for everybody, a seat for
        #: that seat only, ``-2 - seat`` for everybody but that seat.
        self.log = _Log()
        #: Cards each seat has discarded this hand.
        self.discards = np.zeros((game.players, NUM_CODES), np.float32)
        self._pending_draw = -1
        self._terminal = False
        self._start_deal()

    # --- the deal -------------------------------------------------------------------------

    def _start_deal(self) -> None:
        game = self.table.game
        players = game.players
        self._left = [0] * NUM_CODES
        for c in deck(decks_for(players), game.rules.with_jokers):
            self._left[c] += 1
        self._size = hand_size_for(players)
        self._dealer = (game.dealer + 1) % players
        self._dealt: list[list[int]] = [[] for _ in range(players)]
        self._to_deal = players * self._size + 1
        self.discards[:] = 0
        number = game.hand_number + 1
        self.log.append((-1, f"hand {number}, {seat_str(self._dealer)} deals"))

    def _deal_card(self, card: int) -> None:
        players = self.table.game.players
        k = players * self._size + 1 - self._to_deal
        self._left[card] -= 1
        self._to_deal -= 1
        if self._to_deal:
            seat = (self._dealer + 1 + k) % players
            self._dealt[seat].append(card)
            self.log.append((seat, f"dealt {card_str(card)}"))
            return
        self.log.append((-1, f"discard {card_str(card)} turned up"))
        stock = tuple(c for c in range(NUM_CODES) for _ in range(self._left[c]))
        hands = tuple(tuple(sorted(h)) for h in self._dealt)
        self.table.deal(Deal(hands, card, stock))

    # --- the OpenSpiel API ------------------------------------------------------------------

    def current_player(self) -> int:
        """The player to act, or CHANCE, or TERMINAL."""
        if self._terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        if self._to_deal or self._pending_draw >= 0:
            return int(pyspiel.PlayerId.CHANCE)
        to_act = self.table.game.to_act
        assert to_act is not None
        return to_act

    def _legal_actions(self, player: int) -> list[int]:
        # a copy: OpenSpiel's callers get a list of their own, and the table's is its cache
        return list(self.table.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that can come next, with their probabilities."""
        if self._to_deal:
            counts = self._left
        else:
            counts = [0] * NUM_CODES
            for c in self.table.game.stock:
                counts[c] += 1
        total = sum(counts)
        return [(c, k / total) for c, k in enumerate(counts) if k]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        table = self.table
        game = table.game
        if self._to_deal:
            self._deal_card(action)
            return
        if self._pending_draw >= 0:
            seat = self._pending_draw
            self._pending_draw = -1
            stock = game.stock
            i = len(stock) - 1 - stock[::-1].index(action)
            stock[i], stock[-1] = stock[-1], stock[i]
            table.play(Move(seat, "draw"))
            self.log.append((seat, f"{seat_str(seat)} draws {card_str(action)}"))
            self.log.append((-2 - seat, f"{seat_str(seat)} draw"))
            self._after_move()  # the draw may be the hand's last move allowed
            return
        if action == DRAW:
            if DRAW not in table.legal_actions():
                raise ValueError("the stock is empty: draw is not legal")
            self._pending_draw = game.to_act if game.to_act is not None else -1
            return
        move = table.play_action(action)
        if move.verb == "discard":
            self.discards[move.seat, move.cards[0]] += 1
        self.log.append((-1, str(move)))
        self._after_move()

    def _after_move(self) -> None:
        """Score a hand that the move ended (by going out, the stock or the cap on moves), then
        deal the next or end the game."""
        game = self.table.game
        if game.is_hand_over():
            result = game.hand_results[-1]
            summary = "hand over: " + " ".join(
                f"{seat_str(s)}={v}" for s, v in enumerate(result.scores)
            )
            self.log.append((-1, summary))
            if game.is_game_over() or game.hand_number >= self._hands:
                self._terminal = True
            else:
                self._start_deal()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return card_str(action)
        try:
            return str(action_to_move(self.table.game, action, player))
        except ValueError:
            return action_str(action)

    def is_terminal(self) -> bool:
        return self._terminal

    def returns(self) -> list[float]:
        """Each seat's total score, once the game is over (zero before)."""
        if not self._terminal:
            return [0.0] * self.table.game.players
        return [float(t) for t in self.table.game.totals]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Rummy500State:
        """A state ``player_id`` cannot tell from this one: the cards it has not seen dealt
        again at random (for ISMCTS). The other seats' private lines of the log become what
        they now hold; the history is not this state's."""
        if self._to_deal or self._terminal or self._pending_draw >= 0:
            return self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        game = self.table.game
        sampled = Game.from_observation(game.observation(player_id), rng)
        sampled.max_moves_per_hand = game.max_moves_per_hand
        sampled.totals = game.totals[:]
        state = self.clone()
        state.table = EncodedGame(sampled)
        log = _Log(e for e in self.log if e[0] < 0 or e[0] == player_id)
        for seat in range(sampled.players):
            if seat != player_id:
                log.append((seat, f"holds {cards_str(sampled.hand(seat))}"))
        state.log = log
        return state

    def __str__(self) -> str:
        game = self.table.game
        if not game.hand_number:
            return "dealing the first hand"
        lines = [
            f"hand {game.hand_number}, {game.phase}",
            "totals: " + " ".join(f"{seat_str(s)}={t}" for s, t in enumerate(game.totals)),
            f"stock: {len(game.stock)}  discard pile (top last): {cards_str(game.discard)}",
        ]
        for meld in game.melds:
            lines.append(f"meld {meld.number}: " + " ".join(played_str(c) for c in meld.cards))
        for s in range(game.players):
            lines.append(f"{seat_str(s)}: {cards_str(game.hand(s))}")
        if self._to_deal:
            lines.append(f"dealing: {self._to_deal} cards to go")
        return "\n".join(lines)


class _Log(list[tuple[int, str]]):
    """A list of immutable entries that state clones copy shallowly."""

    def __deepcopy__(self, memo: dict[int, object]) -> _Log:
        return _Log(self)


class Rummy500Observer:
    """What a player sees, as a string and a tensor (the pyspiel ``PyObserver`` interface).

    The private part (the player's own cards) is left out for a public observer
    (``private_info=NONE``); an observer of every player's private information is not offered.
    """

    def __init__(self, game: Rummy500Game, iig_obs_type: Any) -> None:
        if not iig_obs_type.public_info:
            raise ValueError("observers without the public information are not supported")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("Rummy 500 has no observer of every player's cards")
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.layout = game.layout
        self.players = game.players
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = self.layout.size + (self.players * NUM_CODES if self.perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[: self.layout.size]}
        if self.perfect_recall:
            self.dict["discards"] = self.tensor[self.layout.size :].reshape(self.players, NUM_CODES)

    def set_from(self, state: Rummy500State, player: int) -> None:
        """Write ``player``'s view of ``state`` into :attr:`tensor`."""
        vector = state.table.observation(player)
        start = self.layout.segments["hand"][0]
        if not self.private:
            vector[start : start + NUM_CODES] = 0
        elif state._to_deal:
            hand = np.zeros(NUM_CODES, np.float32)
            for c in state._dealt[player]:
                hand[c] += 1
            vector[start : start + NUM_CODES] = hand
        self.tensor[: self.layout.size] = vector
        if self.perfect_recall:
            order = [(player + r) % self.players for r in range(self.players)]
            self.dict["discards"][:] = state.discards[order]

    def string_from(self, state: Rummy500State, player: int) -> str:
        """The information state (perfect recall) or the observation, as text."""
        game = state.table.game
        head = f"{seat_str(player)} rules: {game.rules}"
        if self.perfect_recall:
            mine = player if self.private else -1  # a public observer sees "P2 draw" only
            hidden = -2 - mine
            lines = [
                line
                for who, line in state.log
                if who == -1 or who == mine or (who < -1 and who != hidden)
            ]
            return "\n".join([head, *lines])
        if state._to_deal:
            cards = cards_str(sorted(state._dealt[player])) if self.private else "?"
            return f"{head}\ndealing; your cards: {cards}"
        obs = game.observation(player)
        lines = [
            head,
            f"hand {obs.hand_number}, {obs.phase}, to act: "
            + (seat_str(obs.to_act) if obs.to_act is not None else "-"),
            "totals: " + " ".join(str(t) for t in obs.totals),
            "hand sizes: " + " ".join(str(n) for n in obs.hand_sizes),
            f"stock: {obs.stock_size}  discard pile (top last): {cards_str(obs.discard_pile)}",
        ]
        if self.private:
            lines.append(f"your hand: {cards_str(obs.hand)}")
        for meld in obs.melds:
            lines.append(f"meld {meld.number}: " + " ".join(played_str(c) for c in meld.cards))
        for s, known in enumerate(obs.known):
            if known and s != player:
                lines.append(f"{seat_str(s)} holds {cards_str(known)}")
        if obs.must_use >= 0:
            lines.append(f"must use {card_str(obs.must_use)}")
        return "\n".join(lines)


pyspiel.register_game(_GAME_TYPE, Rummy500Game)
