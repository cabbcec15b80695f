"""A bot that misbehaves on purpose: ``python3 misbehaving.py MODE [AFTER]``.

It plays the first legal move, except from its AFTER-th request on (default 3), when it:

- ``crash``: exits with status 3 (after a line on stderr);
- ``garbage``: answers a line that is not JSON, every other move;
- ``illegal``: answers a move that is not legal (or not notation), every other move;
- ``slow``: answers too late, every other move;
- ``late-once``: answers one request too late (the first draw from its AFTER-th request on),
  then on time; it is a version 1 bot (no ids), so only the order tells which answer is late;
- ``hang``: stops answering altogether (but stays alive);
- ``reorder``: writes melds with their cards in reverse order and in lower case;
- ``silent-hello``: does not answer hello.
"""

import json
import sys
import time

mode = sys.argv[1]
after = int(sys.argv[2]) if len(sys.argv) > 2 else 3
acts = 0
late = False


def send(obj):
    print(json.dumps(obj), flush=True)


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if mode != "silent-hello":
            send({"name": f"misbehaving-{mode}", "author": "tests"})
        continue
    if msg["type"] == "quit":
        break
    if msg["type"] != "act":
        continue
    acts += 1
    legal = msg["legal"]
    move = legal[0]
    odd = acts >= after and acts % 2 == 1
    if mode == "crash" and acts >= after:
        print("about to crash", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "garbage" and odd:
        print("this is not { json", flush=True)
        continue
    if mode == "illegal" and odd:
        send({"move": "P9 meld AS AS AS" if acts % 4 == 1 else "what now?"})
        continue
    if mode == "slow" and odd:
        time.sleep(msg["deadline_ms"] / 1000 * 1.5)
    if mode == "late-once" and not late and acts >= after and msg["phase"] == "draw":
        late = True
        time.sleep(msg["deadline_ms"] / 1000 * 1.5)
    if mode == "hang" and acts >= after:
        time.sleep(3600)
    if mode == "reorder":
        melds = [m for m in legal if m.split()[1] == "meld"]
        if melds:
            words = melds[0].split()
            move = " ".join([*words[:2], *reversed([w.lower() for w in words[2:]])])
    send({"move": move})
