// pace.js: computer moves one at a time, nothing lost or reordered, the player's own never held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, moveData } from './web.js';

const { Pacer, paceOf, paceMs, lastMoveMarks, COMPUTER_SPEEDS } = await load('pace.js');
const { unreadCount } = await load('chat-unread.js');

/** A clock and timers the test moves by hand. */
function fakeTime() {
  let now = 0;
  let timers = [];
  return {
    clock: () => now,
    timers: {
      setTimeout: (fn, ms) => {
        const timer = { at: now + ms, fn };
        timers.push(timer);
        return timer;
      },
      clearTimeout: (timer) => {
        timers = timers.filter((x) => x !== timer);
      },
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        now = due.at;
        due.fn();
      }
      now = end;
    },
  };
}

const bot = (version, move) => ({ type: 'update', version, event: { kind: 'move', move, seat: move.split(' ')[0], by: 'bot' } });
const person = (version, move) => ({ type: 'update', version, event: { kind: 'move', move, seat: move.split(' ')[0], by: 'player' } });

function pacer(pause = 1000) {
  const time = fakeTime();
  const shown = [];
  const p = new Pacer((m, at) => shown.push([time.clock(), m.version ?? m.type, at]), () => pause, time);
  return { p, time, shown };
}

test('the speeds are the terminal game’s', () => {
  assert.deepEqual(COMPUTER_SPEEDS, { slow: 1800, normal: 900, fast: 350, instant: 0 });
  assert.equal(paceMs('nonsense'), 900);
});

test('what waits: computer moves; what does not: chat, a new state, a call to answer', () => {
  assert.equal(paceOf(bot(3, 'P2 draw')), 'paced');
  assert.equal(paceOf({ ...bot(3, 'P2 draw'), event: { kind: 'move', move: 'P2 draw', by: 'takeover' } }), 'paced');
  assert.equal(paceOf(person(3, 'P1 draw')), 'queued');
  assert.equal(paceOf({ type: 'seats', version: 3 }), 'queued');
  assert.equal(paceOf({ type: 'chat', version: 3 }), 'aside');
  assert.equal(paceOf({ type: 'state', version: 3 }), 'urgent');
  assert.equal(paceOf({ ...bot(3, 'P2 discard 4C'), call: { deadline_ms: 5000 } }), 'urgent');
});

test('computer moves are shown a pause apart, in order, none lost', () => {
  const { p, time, shown } = pacer(1000);
  p.push(person(5, 'P1 discard 4C'));
  p.push(bot(6, 'P2 draw'));
  p.push(bot(7, 'P2 meld 5H 6H 7H'));
  p.push({ type: 'seats', version: 7 });
  p.push(bot(8, 'P2 discard KD'));
  assert.deepEqual(shown.map((s) => s[1]), [5]); // the player's own move at once
  time.advance(999);
  assert.equal(shown.length, 1);
  time.advance(1);
  assert.deepEqual(shown.map((s) => s[1]), [5, 6]);
  time.advance(1000);
  assert.deepEqual(shown.map((s) => s[1]), [5, 6, 7, 7]); // the seats message follows its update
  time.advance(5000);
  assert.deepEqual(shown.map((s) => [s[0], s[1]]), [[0, 5], [1000, 6], [2000, 7], [2000, 7], [3000, 8]]);
  assert.ok(shown.every((s) => s[2] === 0), 'each message keeps the time it came');
  assert.equal(p.waiting, 0);
});

test('the player acting, a new state or a call shows everything waiting at once', () => {
  const { p, time, shown } = pacer(1000);
  p.push(person(1, 'P1 discard 4C'));
  p.push(bot(2, 'P2 draw'));
  p.push(bot(3, 'P2 discard 5C'));
  p.flush(); // the player pressed something
  assert.deepEqual(shown.map((s) => s[1]), [1, 2, 3]);
  p.push(bot(4, 'P2 draw'));
  p.push({ ...bot(5, 'P2 discard 9H'), call: { deadline_ms: 5000 } });
  assert.deepEqual(shown.map((s) => s[1]), [1, 2, 3, 4, 5]);
  p.push(bot(6, 'P2 draw'));
  p.push({ type: 'chat', text: 'hi' }); // chat does not wait behind the game
  assert.deepEqual(shown.map((s) => s[1]), [1, 2, 3, 4, 5, 'chat']);
  p.push({ type: 'state', version: 9 });
  assert.deepEqual(shown.map((s) => s[1]), [1, 2, 3, 4, 5, 'chat', 6, 9]);
  time.advance(10000);
  assert.equal(shown.length, 8);
});

test('instant shows computer moves as they come', () => {
  const { p, shown } = pacer(0);
  p.push(bot(2, 'P2 draw'));
  p.push(bot(3, 'P2 discard 5C'));
  assert.deepEqual(shown.map((s) => s[1]), [2, 3]);
});

test('a stopped pacer shows nothing more', () => {
  const { p, time, shown } = pacer(1000);
  p.push(person(1, 'P1 discard 4C'));
  p.push(bot(2, 'P2 draw'));
  p.stop();
  time.advance(5000);
  assert.deepEqual(shown.map((s) => s[1]), [1]);
});

test('the last move is marked where it shows on the table', () => {
  const view = { discard_pile: ['4C', 'KD'], melds: [{ number: 1 }, { number: 2 }] };
  const move = (text) => ({ kind: 'move', ...moveData(text) });
  assert.deepEqual(lastMoveMarks(move('P2 draw'), view, 'P1'), [['.seat[data-seat="P2"]', 'draw']]);
  assert.deepEqual(lastMoveMarks(move('P1 draw'), view, 'P1'), [['.hand .hand-card.arrived', 'draw']]);
  assert.deepEqual(lastMoveMarks(move('P2 take 2'), view, 'P1'), [['.seat[data-seat="P2"]', 'take']]);
  assert.deepEqual(lastMoveMarks(move('P2 meld 5H 6H 7H'), view, 'P1'), [['[data-meld="2"]', 'meld']]);
  assert.deepEqual(lastMoveMarks(move('P2 layoff 8H 1'), view, 'P1'), [['[data-meld="1"]', 'layoff']]);
  assert.deepEqual(lastMoveMarks(move('P2 discard KD'), view, 'P1'), [['.pile [data-depth="1"]', 'discard']]);
  assert.deepEqual(lastMoveMarks({ kind: 'deal' }, view, 'P1'), []);
});

test('the chat counts the others’ lines after the newest one seen', () => {
  const chat = [
    { seat: 'P2', at: 10, text: 'hi' },
    { seat: 'P1', at: 11, text: 'hello' },
    { seat: 'P2', at: 12, text: 'good luck' },
    { seat: 'P3', at: 13, text: 'gl' },
  ];
  assert.equal(unreadCount(chat, 10, 'P1'), 2);
  assert.equal(unreadCount(chat, 0, null), 4); // a spectator has no lines of its own
  assert.equal(unreadCount(chat, 13, 'P1'), 0);
});
