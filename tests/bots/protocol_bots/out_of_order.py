"""A version 1.1 bot that answers out of order: ``python3 out_of_order.py [HOLD]``.

It plays the first legal move and echoes each request's ``id``, except that it holds back its
answer to the HOLD-th request (default 3; a ``draw`` request, or the first one after it) until
the next request comes: then it answers the next request first, and only then its late answer
to the held one. A controller that matches answers by id takes each answer for its own request;
one that takes answers in order would play the held answer for the next request.
"""

import json
import sys

hold = int(sys.argv[1]) if len(sys.argv) > 1 else 3
acts = 0
held = None


def send(obj):
    print(json.dumps(obj), flush=True)


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        send({"name": "out-of-order", "author": "tests"})
    elif msg["type"] == "quit":
        break
    elif msg["type"] == "act":
        acts += 1
        answer = {"move": msg["legal"][0], "id": msg["id"]}
        if held is None and acts >= hold and msg["phase"] == "draw" and hold > 0:
            held = answer  # no answer now: the controller gives up on this request
            hold = 0
            continue
        send(answer)
        if held is not None:
            send(held)  # the late answer, after the answer to the request that followed
            held = None
