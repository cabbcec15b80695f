// summary.js: the hand summary and game over, rendered with the page's Preact and read as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, renderToString, textOf, rowsOf } from './web.js';

const { html } = await load('lib.js');
const { Summary, TotalsChart } = await load('summary.js');
const { EMPTY, reduce } = await load('table-state.js');

const NAMES = { P1: 'Ann', P2: 'Computer P2', P3: 'Cleo' };
const name = (seat) => NAMES[seat];
const SEATS = ['P1', 'P2', 'P3'].map((seat) => ({ seat, kind: seat === 'P2' ? 'bot' : 'human', name: NAMES[seat] }));
const toasts = { show() {} };

function table(messages) {
  const start = {
    type: 'state',
    version: 1,
    table: { table_id: 't1', status: 'playing', players: 3, rules: 'jokers=on target=300' },
    you: { seat: 'P1', spectator: false },
    seats: SEATS,
    view: { hand_number: 1, phase: 'draw', discard_pile: [], melds: [], hand_results: [] },
    legal: [],
  };
  return messages.reduce((s, m) => reduce(s, m), reduce(EMPTY, start));
}

const HAND_1 = {
  type: 'hand_over',
  version: 40,
  hand_number: 1,
  scores: { P1: 95, P2: -12, P3: 40 },
  melded: { P1: 95, P2: 8, P3: 55 },
  left: { P1: 0, P2: 20, P3: 15 },
  ended_by: 'out',
  out: 'P1',
  capped: false,
  totals: { P1: 95, P2: -12, P3: 40 },
};
const HAND_2 = {
  ...HAND_1,
  version: 80,
  hand_number: 2,
  scores: { P1: 10, P2: 30, P3: -5 },
  melded: { P1: 25, P2: 30, P3: 0 },
  left: { P1: 15, P2: 0, P3: 5 },
  ended_by: 'stock',
  out: null,
  totals: { P1: 105, P2: 18, P3: 35 },
};

function summaryOf(state, me = 'P1', token = 'tok') {
  return renderToString(
    html`<${Summary} state=${state} me=${me} token=${token} tableId="t1" name=${name} onClose=${() => {}} toasts=${toasts} />`,
  );
}

test("a hand's summary: who went out, each player's melded, left, score and total", async () => {
  const page = await summaryOf(table([HAND_1]));
  assert.match(page, /role="dialog"/);
  assert.match(page, /aria-modal="true"/);
  assert.match(textOf(page), /^Hand 1 is over You went out\./, 'the player reads their own going out as theirs');
  assert.match(textOf(await summaryOf(table([HAND_1]), 'P3')), /^Hand 1 is over Ann went out\./);
  assert.deepEqual(rowsOf(page), ['Ann 95 0 +95 95', 'Computer P2 8 -20 -12 -12', 'Cleo 55 -15 +40 40']);
  assert.match(textOf(page), /Play on$/);
  assert.doesNotMatch(page, /data-action="rematch"/, 'no rematch before the game is over');
  assert.doesNotMatch(page, /Scores by hand/, 'one hand: no table by hand');
});

test('after the second hand: the stock ran out, the totals run on, and a table of every hand', async () => {
  const page = await summaryOf(table([HAND_1, HAND_2]));
  assert.match(textOf(page), /The stock ran out\./);
  assert.deepEqual(rowsOf(page), ['Ann 25 -15 +10 105', 'Computer P2 30 0 +30 18', 'Cleo 0 -5 -5 35']);
  const byHand = page.slice(page.indexOf('Scores by hand'));
  assert.deepEqual(rowsOf(byHand), ['1 +95 -12 +40', '2 +10 +30 -5']);
  assert.deepEqual(rowsOf(byHand, 'tfoot'), ['Total 105 18 35']);
});

test('a hand that went on too long says it was scored as if the stock ran out', async () => {
  const page = await summaryOf(table([{ ...HAND_1, ended_by: 'stock', out: null, capped: true }]));
  assert.match(textOf(page), /scored as if the stock ran out/);
});

test('once the next hand is dealt, the summary says so', async () => {
  const s = table([HAND_1, { type: 'update', version: 41, event: { kind: 'deal', hand_number: 2, dealer: 'P2' }, view: null, legal: [] }]);
  assert.match(textOf(await summaryOf(s)), /The next hand has started — play on$/);
});

test('game over: the winner, the record to download, a rematch for a player only', async () => {
  const over = { type: 'game_over', version: 81, totals: { P1: 105, P2: 18, P3: 35 }, winner: 'P3', hands: 2 };
  const s = table([HAND_1, HAND_2, over]);
  const page = await summaryOf(s);
  assert.match(textOf(page), /^Cleo won the game! After hand 2\./);
  assert.match(page, /class="[^"]*winner[^"]*"[^>]*><th scope="row">.*?Cleo/);
  assert.match(page, /href="\/api\/tables\/t1\/record" download="rummy500-t1\.r500"/);
  assert.match(page, /data-action="rematch"/);
  assert.match(page, /<details class="by-hand" open/);
  assert.match(page, /role="img" aria-label="Totals by hand\. Final totals: Ann 105, Computer P2 18, Cleo 35"/);
  assert.doesNotMatch(page, /data-action="play-on"/);
  const watcher = await summaryOf(s, null, null);
  assert.doesNotMatch(watcher, /data-action="rematch"/, 'a spectator has no seat to rematch with');
  const won = await summaryOf(s, 'P3');
  assert.match(textOf(won), /Congratulations, you won!/);
});

test('the chart of totals draws one line per seat through every hand, from 0', async () => {
  const results = [{ scores: { P1: 95, P2: -12 } }, { scores: { P1: 10, P2: 30 } }];
  const chart = await renderToString(
    html`<${TotalsChart} seats=${['P1', 'P2']} results=${results} name=${name} target=${300} />`,
  );
  const lines = [...chart.matchAll(/<polyline points="([^"]+)"/g)].map((m) =>
    m[1].split(' ').map((p) => p.split(',').map(Number)),
  );
  assert.equal(lines.length, 2);
  for (const points of lines) assert.equal(points.length, 3, 'the start and two hands');
  const [ann, ben] = lines;
  // y grows downwards: Ann climbs to 105; Ben dips below 0 and ends at 18
  assert.equal(ann[0][1], ben[0][1], 'both start at 0');
  assert.ok(ann[2][1] < ann[1][1] && ann[1][1] < ann[0][1]);
  assert.ok(ben[1][1] > ben[0][1] && ben[2][1] < ben[0][1]);
  assert.deepEqual(ann.map((p) => p[0]), ben.map((p) => p[0]), 'the hands line up');
  assert.match(chart, /class="target"/);
  assert.match(chart, />300</);
});
