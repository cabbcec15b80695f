#!/usr/bin/env python3
"""A stronger rummy500 bot, in plain Python (no imports beyond the standard library).

It speaks version 1.1 of the bot protocol (docs/bot-protocol.md): it echoes each request's
``id``. Its play, move by move:

- **call:** calls Rummy! with the fewest cards that allow a call, if any;
- **draw:** takes the top discard when it would make a meld with its hand or lay off on the
  table, or a few discards (at most 3) when the rules let it; otherwise draws from the stock;
- **play:** melds first (the meld worth most points), then lays off, then discards the highest
  card that goes with nothing in its hand (no pair, no neighbour of its suit), keeping cards
  that could still make melds;
- **float:** as in draw.

It writes one line per decision on standard error (bot-match keeps it in the bot's log file).

    rummy500 bot-match --engine "python3 examples/bots/greedy.py" --vs intermediate --games 20
"""

import json
import sys

RANKS = "A23456789TJQK"
VALUES = {"A": 15, "T": 10, "J": 10, "Q": 10, "K": 10}


def value(card):
    """Points of a card (standard values; a joker 15)."""
    if card.startswith("JK"):
        return 15
    return VALUES.get(card[0]) or int(card[0])


def rank(card):
    return RANKS.index(card[0])


def words(move):
    """``"P2 meld 4H 5H 6H"`` -> ``("meld", ["4H", "5H", "6H"])``."""
    parts = move.split()
    return parts[1], parts[2:]


def makes_meld(card, hand):
    """Whether ``card`` forms a group or a run of three with two cards of ``hand``."""
    if card == "JK":
        return True
    same_rank = {c[1] for c in hand if c != "JK" and c[0] == card[0] and c[1] != card[1]}
    if len(same_rank) >= 2:
        return True
    suited = {rank(c) for c in hand if c != "JK" and c[1] == card[1]}
    r = rank(card)
    ace_high = {13} if 0 in suited else set()  # an ace goes above the king too
    near = suited | ace_high
    if r == 0 and {11, 12} <= near:  # Q-K-A
        return True
    return any({r + a, r + b} <= near for a, b in ((-2, -1), (-1, 1), (1, 2)))


def lays_off(card, melds):
    """Whether ``card`` fits a meld on the table (the fourth of a group, or a run's end)."""
    for meld in melds:
        natural = [c for c in meld["cards"] if not c.startswith("JK")]
        if not natural:
            continue
        if not meld["run"]:
            suits = {c[1] for c in natural}
            if card[0] == natural[0][0] and card[1] not in suits and len(meld["cards"]) < 4:
                return True
            continue
        suit = natural[0][1]
        if card[1] != suit:
            continue
        ranks = [rank(c.split("=")[-1]) if "=" in c else rank(c) for c in meld["cards"]]
        low, high = ranks[0], ranks[-1]
        if high < low:  # a run ending with a high ace
            high = 13
        r = rank(card)
        if r == low - 1 or r == high + 1 or (r == 0 and high == 12):
            return True
    return False


def goes_with_something(card, hand):
    """A pair, or a neighbour (or a card two away) of the same suit: worth keeping."""
    if card == "JK":
        return True
    others = [c for c in hand if c != card and c != "JK"]
    if any(c[0] == card[0] for c in others):
        return True
    return any(c[1] == card[1] and abs(rank(c) - rank(card)) <= 2 for c in others)


def choose(request):
    legal = request["legal"]
    by_verb = {}
    for move in legal:
        by_verb.setdefault(words(move)[0], []).append(move)
    hand = request["hand"]
    phase = request["phase"]
    if phase == "call":
        calls = sorted(by_verb.get("rummy", []), key=lambda m: int(m.split()[2]))
        return calls[0] if calls else by_verb["pass"][0]
    if phase in ("draw", "float"):
        pile = request["discard_pile"]
        takes = {int(m.split()[2]): m for m in by_verb.get("take", [])}
        deep = [n for n in takes if 1 < n <= 3]
        if deep:
            return takes[max(deep)]
        if 1 in takes and pile:
            top = pile[-1]
            if makes_meld(top, hand) or lays_off(top, request["melds"]):
                return takes[1]
        for verb in ("draw", "take", "end"):
            if verb in by_verb:
                return by_verb[verb][0]
        return legal[0]
    # play: meld the most points, then lay off, then discard
    if "meld" in by_verb:
        return max(by_verb["meld"], key=lambda m: sum(value(c) for c in words(m)[1]))
    if "layoff" in by_verb:
        return max(by_verb["layoff"], key=lambda m: value(words(m)[1][0]))
    if "discard" in by_verb:

        def badness(move):
            card = words(move)[1][0]
            return (not goes_with_something(card, hand), value(card))

        return max(by_verb["discard"], key=badness)
    return legal[0]


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            print(json.dumps({"name": "greedy", "author": "rummy500 examples"}), flush=True)
        elif kind == "act":
            move = choose(message)
            print(f"request {message.get('id')}: {message['phase']} -> {move}", file=sys.stderr)
            answer = {"move": move}
            if "id" in message:
                answer["id"] = message["id"]
            print(json.dumps(answer), flush=True)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
