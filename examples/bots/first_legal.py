#!/usr/bin/env python3
"""A complete rummy500 bot in a few lines: it speaks the bot protocol on stdin/stdout.

It is only a little smarter than "play the first legal move": it calls Rummy when it can, melds
and lays off whatever it can, draws from the stock, and discards its highest card.

    rummy500 bot-match --engine "python3 examples/bots/first_legal.py" --vs beginner --games 10
"""

import json
import sys

VALUES = {"A": 15, "T": 10, "J": 10, "Q": 10, "K": 10, "JK": 15}


def value(card):
    return VALUES.get(card, VALUES.get(card[0], int(card[0]) if card[0].isdigit() else 0))


def choose(request):
    legal = request["legal"]
    by_verb = {}
    for move in legal:
        by_verb.setdefault(move.split()[1], []).append(move)
    for verb in ("rummy", "meld", "layoff", "draw"):
        if verb in by_verb:
            return by_verb[verb][0]
    if "discard" in by_verb:
        return max(by_verb["discard"], key=lambda m: value(m.split()[2]))
    return legal[0]


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"name": "first-legal", "author": "rummy500 examples"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"move": choose(message)}), flush=True)
    elif message["type"] == "quit":
        break
