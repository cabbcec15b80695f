// review-model.js: the review's NDJSON stream read a chunk at a time, and moving through the
// replay and the list of decisions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './web.js';

const REVIEW_MODEL = await load('review-model.js');
const { splitLines, readLine, reviewingNumber, stepBy, edge, positionOf, decisionAt, costly, handEnd, points } = REVIEW_MODEL;

// two hands: three moves (four positions), then one move (two positions)
const REPLAY = [
  { hand: 1, moves: ['a', 'b', 'c'], positions: [{}, {}, {}, {}] },
  { hand: 2, moves: ['d'], positions: [{}, {}] },
];
const REVIEW = {
  hands: [
    { hand: 1, decisions: [{ hand: 1, index: 0, tag: 'good' }, { hand: 1, index: 2, tag: 'mistake' }] },
    { hand: 2, decisions: [{ hand: 2, index: 0, tag: 'blunder' }] },
  ],
};

test('lines split across chunks are parsed once whole', () => {
  let { lines, rest } = splitLines('', '{"type":"queued"}\n{"type":"prog');
  assert.deepEqual(lines, [{ type: 'queued' }]);
  assert.equal(rest, '{"type":"prog');
  ({ lines, rest } = splitLines(rest, 'ress","done":1,"total":5}\n\n'));
  assert.deepEqual(lines, [{ type: 'progress', done: 1, total: 5 }]);
  assert.equal(rest, '');
});

test('the stream moves the page from queued through progress to the review', () => {
  const start = { status: 'connecting', done: 0, total: 0, data: null, error: '' };
  const states = [
    { type: 'queued' },
    { type: 'progress', done: 0, total: 54 },
    { type: 'progress', done: 11, total: 54 },
  ].reduce((all, line) => [...all, readLine(all.at(-1), line)], [start]);
  assert.deepEqual(
    states.map((s) => s.status),
    ['connecting', 'queued', 'running', 'running'],
  );
  assert.deepEqual(reviewingNumber(states.at(-1).done, states.at(-1).total), { k: 12, n: 54 });
  const counted = readLine(states.at(-1), { type: 'progress', done: 12, total: 54, counts: { good: 10, blunder: 2 } });
  assert.deepEqual(counted.counts, { good: 10, blunder: 2 });
  const done = readLine(states.at(-1), { type: 'review', review: {}, replay: [] });
  assert.equal(done.status, 'done');
  assert.equal(done.done, 54);
  const failed = readLine(states.at(-1), { type: 'error', message: 'no' });
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error, 'no');
  assert.equal(readLine(start, { type: 'unknown' }), start);
});

test('the last decision being reviewed never counts past the total', () => {
  assert.deepEqual(reviewingNumber(54, 54), { k: 54, n: 54 });
  assert.deepEqual(reviewingNumber(0, 0), { k: 1, n: 0 });
});

test('stepping crosses from one hand to the next and stops at either end', () => {
  assert.deepEqual(stepBy(REPLAY, { hand: 0, step: 2 }, 1), { hand: 0, step: 3 });
  assert.deepEqual(stepBy(REPLAY, { hand: 0, step: 3 }, 1), { hand: 1, step: 0 });
  assert.deepEqual(stepBy(REPLAY, { hand: 1, step: 0 }, -1), { hand: 0, step: 3 });
  assert.deepEqual(stepBy(REPLAY, { hand: 0, step: 0 }, -1), { hand: 0, step: 0 });
  assert.deepEqual(stepBy(REPLAY, { hand: 1, step: 1 }, 1), { hand: 1, step: 1 });
  assert.deepEqual(edge(REPLAY, false), { hand: 0, step: 0 });
  assert.deepEqual(edge(REPLAY, true), { hand: 1, step: 1 });
});

test('a decision is shown just before its move, and found again there', () => {
  const mistake = REVIEW.hands[0].decisions[1];
  const pos = positionOf(REPLAY, mistake);
  assert.deepEqual(pos, { hand: 0, step: 2 });
  assert.equal(decisionAt(REVIEW, REPLAY, pos), mistake);
  assert.equal(decisionAt(REVIEW, REPLAY, { hand: 0, step: 1 }), null);
  assert.equal(decisionAt(REVIEW, REPLAY, positionOf(REPLAY, REVIEW.hands[1].decisions[0])), REVIEW.hands[1].decisions[0]);
});

test('the costly decisions are every one not tagged good, in order', () => {
  assert.deepEqual(
    costly(REVIEW).map((d) => d.tag),
    ['mistake', 'blunder'],
  );
});

test('points are said with at most one decimal', () => {
  assert.equal(points(12.345), '12.3');
  assert.equal(points(97), '97');
  assert.equal(points(0.04), '0');
});

test("points are written with the language's decimal mark", async () => {
  const i18n = await load('i18n.js');
  try {
    await i18n.setLanguage('hu');
    assert.equal(points(12.345), '12,3');
    await i18n.setLanguage('lo');
    assert.equal(points(2.5), '2,5');
  } finally {
    await i18n.setLanguage('en');
  }
  assert.equal(points(2.5), '2.5');
});

test('the next costly decision comes after the replay, then wraps to the first', () => {
  const { nextCostly } = REVIEW_MODEL;
  assert.equal(nextCostly(REVIEW, REPLAY, { hand: 0, step: 0 }).tag, 'mistake');
  assert.equal(nextCostly(REVIEW, REPLAY, { hand: 0, step: 2 }).tag, 'blunder');
  assert.equal(nextCostly(REVIEW, REPLAY, { hand: 1, step: 0 }).tag, 'mistake');
  assert.equal(nextCostly({ hands: [{ hand: 1, decisions: [{ hand: 1, index: 0, tag: 'good' }] }] }, REPLAY, { hand: 0, step: 0 }), null);
});

test("a hand's end says who went out, or that the stock ran out, from the record", () => {
  assert.deepEqual(handEnd({ hand: 1, ended_by: 'out', out: 'P2' }), { key: 'summary.out', seat: 'P2' });
  assert.deepEqual(handEnd({ hand: 2, ended_by: 'stock', out: null }), { key: 'summary.stock', seat: null });
  // a record that stops in the hand (automatic play's move cap), or a replay without ends
  assert.deepEqual(handEnd({ hand: 3, ended_by: null, out: null }), { key: 'review.hand.over', seat: null });
  assert.deepEqual(handEnd({ hand: 3 }), { key: 'review.hand.over', seat: null });
});

test('the replay names seats as the table does: a computer player without a name is "Computer P2"', () => {
  const { reviewSeatName } = REVIEW_MODEL;
  const table = {
    seats: [
      { seat: 'P1', kind: 'human', name: 'Ann' },
      { seat: 'P2', kind: 'bot', name: null },
      { seat: 'P3', kind: 'human', name: null, left: true, left_name: 'Cleo' },
    ],
  };
  const names = { P1: 'Ann', P2: 'P2', P3: 'P3' };
  assert.equal(reviewSeatName(table, names, 'P1'), 'Ann');
  assert.equal(reviewSeatName(table, names, 'P2'), 'Computer P2');
  assert.equal(reviewSeatName(table, names, 'P3'), 'Cleo');
  assert.equal(reviewSeatName(null, names, 'P2'), 'P2', "the review's names until the table is known");
  // the game is over: the seat Cleo gave up is no longer "left" (nobody can take it over), but
  // the table (GET /api/tables/{id}) still says who played it until then
  const finished = { seats: [{ seat: 'P3', kind: 'human', name: null, left: false, left_name: 'Cleo' }] };
  assert.equal(reviewSeatName(finished, names, 'P3'), 'Cleo');
});
