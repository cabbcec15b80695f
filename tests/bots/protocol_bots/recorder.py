"""A version 1.1 bot that records the traffic: ``python3 recorder.py FILE``.

It plays the first legal move (echoing the request's ``id``) and appends every line it reads
and writes to FILE as ``{"from": "controller" | "bot", "message": …}``, one per line. It says
on standard error which request it answers.
"""

import json
import sys

record = open(sys.argv[1], "a", encoding="utf-8")  # noqa: SIM115


def log(source, message):
    record.write(json.dumps({"from": source, "message": message}) + "\n")
    record.flush()


def send(obj):
    log("bot", obj)
    print(json.dumps(obj), flush=True)


for line in sys.stdin:
    msg = json.loads(line)
    log("controller", msg)
    if msg["type"] == "hello":
        send({"name": "recorder", "author": "tests"})
    elif msg["type"] == "act":
        print(f"answering request {msg['id']}", file=sys.stderr, flush=True)
        send({"move": msg["legal"][0], "id": msg["id"]})
    elif msg["type"] == "quit":
        break
