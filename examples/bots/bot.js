#!/usr/bin/env node
// A rummy500 bot in JavaScript (Node.js, no packages): version 1.1 of the bot protocol
// (docs/bot-protocol.md). It reads one JSON object per line on standard input and answers one
// per line on standard output, echoing each request's id.
//
// Its play: call Rummy! whenever it may (the fewest cards), meld (the meld worth most points),
// lay off, take the top discard when it fits a meld on the table, otherwise draw from the
// stock, and discard its highest card.
//
//     rummy500 bot-match --engine "node examples/bots/bot.js" --vs beginner --games 10
"use strict";

const readline = require("node:readline");

const FACE = { A: 15, T: 10, J: 10, Q: 10, K: 10 };

/** Points of a card: "7H" 7, "KD" 10, "AS" 15, a joker 15. */
function value(card) {
  if (card.startsWith("JK")) return 15;
  return FACE[card[0]] || Number(card[0]);
}

/** "P2 meld 4H 5H 6H" -> { verb: "meld", args: ["4H", "5H", "6H"] } */
function parse(move) {
  const [, verb, ...args] = move.split(" ");
  return { verb, args };
}

function cardPoints(move) {
  return parse(move).args.reduce((sum, card) => sum + value(card), 0);
}

function best(moves, score) {
  return moves.reduce((a, b) => (score(b) > score(a) ? b : a));
}

function choose(request) {
  const byVerb = {};
  for (const move of request.legal) {
    const { verb } = parse(move);
    (byVerb[verb] = byVerb[verb] || []).push(move);
  }
  if (request.phase === "call") {
    const calls = byVerb.rummy || [];
    if (calls.length) return best(calls, (m) => -Number(parse(m).args[0]));
    return byVerb.pass[0];
  }
  if (request.phase === "draw" || request.phase === "float") {
    // the top discard only when the table takes it (the controller lists it only if legal)
    const top = (byVerb.take || []).find((m) => parse(m).args[0] === "1");
    const card = request.discard_pile[request.discard_pile.length - 1];
    const fits = request.melds.some((meld) => fitsMeld(card, meld));
    if (top && fits) return top;
    for (const verb of ["draw", "take", "end"]) {
      if (byVerb[verb]) return byVerb[verb][0];
    }
    return request.legal[0];
  }
  if (byVerb.meld) return best(byVerb.meld, cardPoints);
  if (byVerb.layoff) return best(byVerb.layoff, cardPoints);
  if (byVerb.discard) return best(byVerb.discard, cardPoints);
  return request.legal[0];
}

const RANKS = "A23456789TJQK";

/** Whether a card from the hand could be laid off on a meld of the act request. */
function fitsMeld(card, meld) {
  if (!card || card === "JK") return false;
  const natural = meld.cards.filter((c) => !c.startsWith("JK"));
  if (!natural.length) return false;
  if (!meld.run) {
    const suits = new Set(natural.map((c) => c[1]));
    return card[0] === natural[0][0] && !suits.has(card[1]) && meld.cards.length < 4;
  }
  if (card[1] !== natural[0][1]) return false;
  const ranks = meld.cards.map((c) => RANKS.indexOf((c.includes("=") ? c.split("=")[1] : c)[0]));
  const low = ranks[0];
  let high = ranks[ranks.length - 1];
  if (high < low) high = 13; // the run ends with a high ace
  const r = RANKS.indexOf(card[0]);
  return r === low - 1 || r === high + 1 || (r === 0 && high === 12);
}

function send(answer) {
  process.stdout.write(JSON.stringify(answer) + "\n");
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ name: "js-bot", author: "rummy500 examples" });
  } else if (message.type === "act") {
    const move = choose(message);
    console.error(`request ${message.id}: ${message.phase} -> ${move}`);
    const answer = { move };
    if (message.id !== undefined) answer.id = message.id;
    send(answer);
  } else if (message.type === "quit") {
    lines.close();
  }
});
lines.on("close", () => process.exit(0));
