// table-state.js: the table as the client knows it, folded from the server's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, moveData } from './web.js';

const { EMPTY, reduce, closeSummary, summaryReady, seatName, totalsByHand } = await load('table-state.js');

const SEATS = [
  { seat: 'P1', kind: 'human', level: null, name: 'Ann', taken: true },
  { seat: 'P2', kind: 'bot', level: 'easy', name: null, taken: true },
];

function view(over = {}) {
  return {
    hand_number: 1,
    dealer: 'P2',
    phase: 'draw',
    to_act: 'P1',
    turn: 'P1',
    discard_pile: ['4C'],
    stock_size: 30,
    melds: [],
    hand: ['7S', '7H', '7C', 'KD'],
    history: [],
    hand_results: [],
    ...over,
  };
}

function state(over = {}) {
  return {
    type: 'state',
    version: 3,
    table: { table_id: 't1', status: 'playing', players: 2, rules: 'target=300', call_seconds: 5 },
    you: { seat: 'P1', spectator: false },
    seats: SEATS,
    chat: [],
    rematch: null,
    view: view(),
    legal: ['P1 draw', 'P1 take 1'],
    legal_moves: ['P1 draw', 'P1 take 1'].map(moveData),
    call: null,
    timer: null,
    can_undo: false,
    ...over,
  };
}

function update(version, event, over = {}) {
  return { type: 'update', version, event, view: view(), legal: [], call: null, timer: null, ...over };
}

const move = (text) => ({ kind: 'move', ...moveData(text), by: 'player' });

test('the first state gives the table, the seat, the view and the legal moves', () => {
  const s = reduce(EMPTY, state(), 1000);
  assert.equal(s.version, 3);
  assert.equal(s.you.seat, 'P1');
  assert.deepEqual(s.legal, ['P1 draw', 'P1 take 1']);
  assert.deepEqual(s.legalMoves.map((m) => [m.verb, m.number]), [['draw', null], ['take', 1]]);
  assert.deepEqual(s.view.hand, ['7S', '7H', '7C', 'KD']);
  assert.equal(s.summary, null);
  assert.equal(s.gameOver, null);
  assert.equal(EMPTY.version, -1, 'the empty state is not changed');
});

test("a state's public log of the hand becomes the Moves log, with the cards taken named", () => {
  const log = [
    { kind: 'deal', hand_number: 1, dealer: 'P2' },
    { kind: 'move', ...moveData('P1 take 2'), taken: ['9D', 'QH'] },
    { kind: 'move', ...moveData('P1 discard 9D'), taken: [] },
  ];
  const s = reduce(EMPTY, state({ log }));
  assert.deepEqual(s.log.map((e) => e.event.kind), ['deal', 'move', 'move']);
  assert.deepEqual(s.log[0].event, { kind: 'deal', hand_number: 1, dealer: 'P2' });
  assert.deepEqual(s.log[1].pile, ['9D', 'QH'], 'the deepest card taken can be named');
  assert.equal(new Set(s.log.map((e) => e.id)).size, 3);
  // a reload keeps who made a move for an away player, which the public log does not say
  let seen = reduce(EMPTY, state({ log: log.slice(0, 2) }));
  seen = reduce(seen, update(4, { kind: 'move', ...moveData('P1 discard 9D'), by: 'takeover' }));
  const reloaded = reduce(seen, state({ log }));
  assert.equal(reloaded.log[2].event.by, 'takeover');
  assert.equal(reduce(seen, state()).log, seen.log, 'a state without a log keeps the one it has');
});

test('a call window and a turn timer are kept on this browser\'s clock', () => {
  const s = reduce(EMPTY, state({ call: { deadline_ms: 4000, window: ['P1'] }, timer: { ms_left: 30000 } }), 1000);
  assert.equal(s.callUntil, 5000);
  assert.equal(s.timerUntil, 31000);
  const after = reduce(s, update(4, move('P1 pass')), 2000);
  assert.equal(after.call, null);
  assert.equal(after.callUntil, null);
});

test('each move of an update is added to the log with the pile as it was before it', () => {
  let s = reduce(EMPTY, state());
  s = reduce(s, update(4, move('P1 take 1'), { legal: ['P1 discard KD'], can_undo: true }));
  assert.deepEqual(s.legal, ['P1 discard KD']);
  assert.equal(s.canUndo, true);
  assert.equal(s.log.at(-1).event.move, 'P1 take 1');
  assert.deepEqual(s.log.at(-1).pile, ['4C'], 'the card taken can be named from the pile before the take');
  assert.equal(s.lastEvent, s.log.at(-1));
  const ids = new Set(s.log.map((e) => e.id));
  assert.equal(ids.size, s.log.length, 'every log line has its own id');
});

test('the log keeps the newest 200 lines', () => {
  let s = reduce(EMPTY, state());
  for (let i = 0; i < 230; i++) s = reduce(s, update(4 + i, move(`P2 discard ${i}`)));
  assert.equal(s.log.length, 200);
  assert.equal(s.log.at(-1).event.move, 'P2 discard 229');
});

test('an undo takes the undone move\'s newest line out of the log', () => {
  let s = reduce(EMPTY, state());
  s = reduce(s, update(4, move('P1 draw')));
  s = reduce(s, update(5, move('P1 meld 7C 7H 7S')));
  s = reduce(s, update(6, { kind: 'undo', ...moveData('P1 meld 7C 7H 7S'), by: 'player' }));
  assert.deepEqual(s.log.map((e) => e.event.move), ['P1 draw']);
  s = reduce(s, update(7, move('P1 meld 7C 7H 7S')));
  assert.deepEqual(s.log.map((e) => e.event.move), ['P1 draw', 'P1 meld 7C 7H 7S'], 'a redo shows once');
});

test('a deal starts a new log and tells an open summary that the next hand has started', () => {
  let s = reduce(EMPTY, state());
  s = reduce(s, update(4, move('P1 draw')));
  s = reduce(s, { type: 'hand_over', version: 9, hand_number: 1, scores: { P1: 40, P2: -5 }, ended_by: 'out', out: 'P1' });
  assert.equal(s.summary.hand_number, 1);
  assert.equal(s.summary.nextHandStarted, undefined);
  s = reduce(s, update(10, { kind: 'deal', hand_number: 2, dealer: 'P1' }));
  assert.equal(s.summary.nextHandStarted, true);
  assert.deepEqual(s.log.map((e) => e.event.kind), ['deal']);
  assert.equal(closeSummary(s).summary, null);
});

test('a state after the next deal closes a summary its player closed with Play on, and tells an open one the hand started', () => {
  const over = { type: 'hand_over', version: 9, hand_number: 1, scores: { P1: 40, P2: -5 }, ended_by: 'out', out: 'P1' };
  let s = reduce(reduce(EMPTY, state()), over);
  const dealt = state({ version: 12, view: view({ hand_number: 2, hand_results: [over] }) });
  // the connection dropped between hands and came back after the deal: no deal update came
  assert.equal(reduce(summaryReady(s), dealt).summary, null, 'a ready summary goes, as at a deal');
  s = reduce(s, dealt);
  assert.equal(s.summary.hand_number, 1);
  assert.equal(s.summary.nextHandStarted, true, 'one left open says the next hand started');
});

test('a state between hands does not show again a summary its player closed, unless the server waits for them', () => {
  const results = [{ scores: { P1: 40, P2: -5 }, ended_by: 'out', out: 'P1' }];
  const between = (waiting) =>
    state({ version: 9, view: view({ phase: 'hand_over', hand_results: results }), next_hand: { waiting, deal_ms: 5000 } });
  let s = reduce(EMPTY, between(['P1']));
  assert.equal(s.summary.hand_number, 1);
  assert.ok(!s.summary.ready);
  s = closeSummary(s);
  assert.equal(reduce(s, between([])).summary, null, 'closed, and the table waits for nobody');
  const again = reduce(s, between(['P1'])).summary;
  assert.ok(again && !again.ready, 'the server waits for P1 again');
  // a reload (a fresh page) while the server has this seat's ready: the summary waits for the deal
  const reloaded = reduce(EMPTY, between(['P2']));
  assert.equal(reloaded.summary.ready, true);
  assert.equal(reduce(reloaded, update(10, { kind: 'deal', hand_number: 2, dealer: 'P1' })).summary, null);
  // a spectator's page shows it, never ready
  const watching = reduce(EMPTY, { ...between(['P1']), you: { seat: null, spectator: true } });
  assert.ok(watching.summary && !watching.summary.ready);
});

test('a state with a later hand over shows that hand\'s summary, not the one left open', () => {
  const results = [{ scores: { P1: 40, P2: -5 } }, { scores: { P1: 10, P2: 65 } }];
  let s = reduce(EMPTY, state({ view: view({ phase: 'hand_over', hand_results: results.slice(0, 1) }) }));
  assert.equal(s.summary.hand_number, 1);
  s = reduce(s, state({ view: view({ phase: 'hand_over', hand_number: 2, hand_results: results }) }));
  assert.equal(s.summary.hand_number, 2);
  assert.deepEqual(s.summary.totals, { P1: 50, P2: 60 });
});

test('a hand is counted once even when its hand_over comes twice', () => {
  let s = reduce(EMPTY, state());
  const over = { type: 'hand_over', version: 9, hand_number: 1, scores: { P1: 40, P2: -5 } };
  s = reduce(s, over);
  s = reduce(s, over);
  assert.equal(s.handResults.length, 1);
  assert.equal(s.summary.type, undefined, 'the message type is not part of the summary');
  s = reduce(summaryReady(s), over);
  assert.equal(s.summary.ready, true, 'a player who said Play on is not asked again');
});

test('a reload during the hand summary shows the summary of the last hand, with running totals', () => {
  const results = [
    { scores: { P1: 40, P2: -5 }, ended_by: 'out', out: 'P1' },
    { scores: { P1: 10, P2: 65 }, ended_by: 'stock' },
  ];
  const s = reduce(EMPTY, state({ view: view({ phase: 'hand_over', hand_results: results }) }));
  assert.equal(s.summary.hand_number, 2);
  assert.deepEqual(s.summary.totals, { P1: 50, P2: 60 });
  assert.deepEqual(s.handResults.map((r) => r.hand_number), [1, 2]);
});

test('game over: the winner and the totals, and the table is finished', () => {
  let s = reduce(EMPTY, state());
  s = reduce(s, { type: 'game_over', version: 80, totals: { P1: 510, P2: 220 }, winner: 'P1', hands: 4 });
  assert.deepEqual(s.gameOver, { totals: { P1: 510, P2: 220 }, winner: 'P1', hands: 4 });
  assert.equal(s.table.status, 'finished');
  const reloaded = reduce(EMPTY, state({ view: view({ phase: 'game_over', winner: 'P1', totals: { P1: 510 }, hand_results: [{ scores: { P1: 510 } }] }) }));
  assert.equal(reloaded.gameOver.winner, 'P1');
  assert.equal(reloaded.summary.hand_number, 1);
});

test('a queued move is dropped when it is played, or when the server cancels it', () => {
  let s = reduce(EMPTY, state());
  s = reduce(s, { type: 'queued', ...moveData('P1 draw') });
  assert.equal(s.queued.move, 'P1 draw');
  assert.equal(reduce(s, update(4, move('P2 pass'))).queued.move, 'P1 draw');
  assert.equal(reduce(s, update(4, move('P1 draw'))).queued, null);
  assert.equal(reduce(s, { type: 'error', code: 'draw_cancelled' }).queued, null);
  assert.equal(reduce(s, { type: 'error', code: 'illegal_move' }), s, 'another error changes nothing');
});

test('a Rummy! call that loses to another seat\'s says who got the card', () => {
  let s = reduce(EMPTY, state());
  s = reduce(s, { type: 'queued', ...moveData('P1 rummy 1') });
  s = reduce(s, update(12, move('P3 rummy 1')));
  assert.deepEqual(s.lostCall, { seat: 'P3', move: 'P3 rummy 1', version: 12 });
  assert.equal(s.queued, null);
  let won = reduce(reduce(EMPTY, state()), { type: 'queued', ...moveData('P1 rummy 1') });
  won = reduce(won, update(12, move('P1 rummy 1')));
  assert.equal(won.lostCall, null, 'its own call lost nothing');
});

test('chat keeps the newest 100 lines; seats, hints and rematches are kept as sent', () => {
  let s = reduce(EMPTY, state());
  for (let i = 0; i < 120; i++) s = reduce(s, { type: 'chat', seat: 'P1', name: 'Ann', text: `line ${i}`, at: i });
  assert.equal(s.chat.length, 100);
  assert.equal(s.chat.at(-1).text, 'line 119');
  assert.equal(s.chat.at(-1).account, null, "a guest's line names no account");
  s = reduce(s, { type: 'chat', seat: 'P2', name: 'Bo', text: 'hi', at: 200, account: 'Bobby' });
  assert.equal(s.chat.at(-1).account, 'Bobby', 'a mute by account matches it');
  s = reduce(s, { type: 'hint', move: 'P1 draw', version: 3 });
  assert.deepEqual(s.serverHint, { move: 'P1 draw', version: 3 });
  assert.equal(reduce(s, update(4, move('P1 draw'))).serverHint, null, 'a hint is for one position');
  s = reduce(s, { type: 'rematch', table_id: 't2', invite_code: 'AAAA' });
  assert.deepEqual(s.rematch, { table_id: 't2', invite_code: 'AAAA' });
  s = reduce(s, { type: 'seats', seats: [SEATS[0]] });
  assert.equal(s.seats.length, 1);
  assert.equal(reduce(s, { type: 'no such message' }), s);
});

test('totals by hand run on from the scores, or are the totals the server gave', () => {
  assert.deepEqual(
    totalsByHand([{ scores: { P1: 40, P2: -5 } }, { scores: { P1: 10, P2: 65 } }, { totals: { P1: 1, P2: 2 } }]),
    [{ P1: 40, P2: -5 }, { P1: 50, P2: 60 }, { P1: 1, P2: 2 }],
  );
  assert.deepEqual(totalsByHand([]), []);
});

test("a seat is called by its player's name, a computer as one", () => {
  const s = reduce(EMPTY, state());
  assert.equal(seatName(s, 'P1'), 'Ann');
  assert.equal(seatName(s, 'P2'), 'Computer P2');
  assert.equal(seatName(s, 'P7'), 'P7');
});

test('a Rummy! call let go is not a line of the Moves log, live or rebuilt from the history', async () => {
  const { logFromHistory } = await load('table-state.js');
  const history = [
    { kind: 'deal', hand_number: 1, dealer: 'P1' },
    { kind: 'move', ...moveData('P1 discard 7S'), taken: [] },
    { kind: 'move', ...moveData('P2 pass'), taken: [] },
    { kind: 'move', ...moveData('P2 draw'), taken: [] },
  ];
  const rebuilt = logFromHistory(history);
  assert.deepEqual(
    rebuilt.map((e) => e.event.move || e.event.kind),
    ['deal', 'P1 discard 7S', 'P2 draw'],
  );
});

test("an update with a pass leaves the Moves log as it was", () => {
  const s = reduce(EMPTY, state());
  const discarded = reduce(s, update(4, move('P2 discard 7S')));
  const passed = reduce(discarded, update(5, move('P1 pass')));
  assert.equal(passed.log, discarded.log);
  assert.equal(passed.version, 5);
});
