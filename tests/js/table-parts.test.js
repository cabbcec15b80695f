// The table's pure parts: the order of the hand (hand-order.js), the seats' colours and marks
// (seat-colors.js), the Moves log's lines (table-log.js) and the status line (table-status.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, moveData, renderToString, textOf } from './web.js';

const { reconcileHand, inSavedOrder, moveEntry, idsOfCards } = await load('hand-order.js');
const { seatIndex, seatColorClass, initials, othersAround } = await load('seat-colors.js');
const { describeEvent } = await load('table-log.js');
const { describeStatus } = await load('table-status.js');

const codes = (entries) => entries.map((e) => e.code);

test("the hand keeps the player's order; new cards come at the right, or sorted in", () => {
  const uid = { n: 0 };
  const first = reconcileHand([], ['KS', '2H', '9C'], 'custom', uid);
  assert.deepEqual(codes(first.entries), ['KS', '2H', '9C']);
  assert.equal(first.added.size, 3);
  // 2H melded away, 5D drawn: the rest stay where the player put them
  const next = reconcileHand(first.entries, ['9C', 'KS', '5D'], 'custom', uid);
  assert.deepEqual(codes(next.entries), ['KS', '9C', '5D']);
  assert.deepEqual([...next.added], [next.entries[2].id], 'only the drawn card is new');
  assert.equal(next.entries[0].id, first.entries[0].id, 'a kept card keeps its id');
  const sorted = reconcileHand(first.entries, ['9C', 'KS', '5D'], 'suit', uid);
  assert.deepEqual(codes(sorted.entries), ['9C', '5D', 'KS']);
});

test('two copies of a card (two decks) are two entries', () => {
  const uid = { n: 0 };
  const one = reconcileHand([], ['7H', '7H', 'JK'], 'custom', uid);
  assert.equal(new Set(one.entries.map((e) => e.id)).size, 3);
  const less = reconcileHand(one.entries, ['7H', 'JK'], 'custom', uid);
  assert.deepEqual(codes(less.entries), ['7H', 'JK']);
  assert.equal(less.added.size, 0);
  assert.deepEqual([...idsOfCards(one.entries, ['7H'])], [one.entries[0].id], 'each card once');
  assert.equal(idsOfCards(one.entries, ['7H', '7H']).size, 2);
});

test("a saved order is the hand's order after a reload; moving a card moves it", () => {
  assert.deepEqual(inSavedOrder(['2H', 'KS', '9C', 'AD'], ['9C', 'KS', '2H']), ['9C', 'KS', '2H', 'AD']);
  const entries = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  assert.deepEqual(moveEntry(entries, 0, 2).map((e) => e.id), ['b', 'c', 'a']);
  assert.equal(moveEntry(entries, 0, 3), null, 'past the end');
  assert.equal(moveEntry(entries, 1, 1), null);
  assert.deepEqual(entries.map((e) => e.id), ['a', 'b', 'c'], 'the hand itself is not changed');
});

test("each seat has its colour, its players' initials, and the others sit after you", () => {
  assert.equal(seatIndex('P3'), 2);
  assert.equal(seatColorClass('P1'), 'seat-color-0');
  assert.equal(seatColorClass('P9'), 'seat-color-0', 'eight colours, then again');
  assert.equal(initials('Ann Lee'), 'AL');
  assert.equal(initials('ben'), 'BE');
  assert.equal(initials('  Cleo  '), 'CL');
  assert.deepEqual(othersAround(['P1', 'P2', 'P3', 'P4'], 'P3'), ['P4', 'P1', 'P2']);
  assert.deepEqual(othersAround(['P1', 'P2'], null), ['P1', 'P2'], 'a spectator sees every seat');
});

test('the Moves log says who dealt, each move in words, and who the computer stood in for', () => {
  const name = (seat) => ({ P1: 'Ann', P2: 'Ben' })[seat];
  const line = (event, pile = []) => describeEvent({ event, pile }, name);
  assert.equal(line({ kind: 'deal', hand_number: 2, dealer: 'P2' }), 'Hand 2: Ben dealt.');
  assert.equal(line({ kind: 'move', ...moveData('P1 take 2'), by: 'player' }, ['4C', '9D', 'KS']), 'Ann took 2 cards from the discard pile, down to the 9♦.');
  assert.equal(
    line({ kind: 'move', ...moveData('P2 discard 7S'), by: 'takeover' }),
    'Ben discarded 7♠. (the computer, for an away player)',
  );
  assert.equal(line({ kind: 'move', ...moveData('P2 pass'), by: 'timeout' }), 'Ben did not call in time.');
  assert.equal(line({ kind: 'undo', ...moveData('P1 meld 4H 5H 6H') }), 'Taken back: Ann melded 4♥ 5♥ 6♥.');
  assert.equal(line({ kind: 'no such event' }), '');
});

test("the status line says whose turn it is and what you may do now", () => {
  const name = (seat) => ({ P1: 'you', P2: 'Ben', P3: 'Cleo' })[seat];
  const seats = [
    { seat: 'P1', kind: 'human' },
    { seat: 'P2', kind: 'bot' },
    { seat: 'P3', kind: 'human', bot_playing: true },
  ];
  const view = { turn: 'P1', window: ['P2', 'P3'], hand: ['7S'], winner: null };
  const status = (over, opts) =>
    describeStatus({ view, seats, call: null, queued: null, ...over }, { me: 'P1', myTurn: true, name, mustUse: null, ...opts });
  assert.equal(describeStatus({ view: null }, {}), 'Waiting for players…');
  assert.equal(status({}, { phase: 'draw' }), 'Your turn: draw from the stock or take from the discard pile.');
  assert.equal(status({}, { phase: 'play', mustUse: 'QH' }), 'Meld or lay off the Q♥ you took first.');
  assert.equal(status({}, { phase: 'play' }), 'Meld and lay off what you like, then discard a card.');
  assert.equal(status({ view: { ...view, hand: [] } }, { phase: 'draw' }), 'Your turn: you are floating — draw or take from the discard pile.');
  assert.equal(status({ view: { ...view, turn: 'P2' } }, { phase: 'play', myTurn: false }), 'Ben is thinking…');
  assert.equal(status({ view: { ...view, turn: 'P3' } }, { phase: 'play', myTurn: false }), 'Cleo is away: the computer plays for them.');
  // only the seats the window asks are named (the server's `deciding`), not every seat of the
  // engine's window: Cleo let these cards go and passes by herself
  assert.equal(status({ deciding: ['P2'] }, { phase: 'call' }), 'Rummy call window: waiting for Ben.');
  assert.equal(status({ deciding: ['P2', 'P3'] }, { phase: 'call' }), 'Rummy call window: waiting for Ben, Cleo.');
  assert.equal(status({ deciding: ['P2'], queued: 'P1 draw' }, { phase: 'call' }), 'Your draw waits for the Rummy call window (Ben).');
  assert.equal(status({ deciding: [] }, { phase: 'call' }), 'The Rummy! call window is closing.');
  // the prompt names the cards that can be claimed (the deepest card of each depth called)
  const pile = { ...view, discard_pile: ['4C', '9D', 'KS', '2H'] };
  const calls = (...moves) => moves.map(moveData);
  assert.equal(
    status({ view: pile, call: { deadline_ms: 5000 }, legalMoves: calls('P1 pass', 'P1 rummy 3') }, { phase: 'call' }),
    'Rummy! You can claim the 9♦ from the pile: call it, or let it go.',
  );
  assert.equal(
    status({ view: pile, call: { deadline_ms: 5000 }, legalMoves: calls('P1 pass', 'P1 rummy 1', 'P1 rummy 3') }, { phase: 'call' }),
    'Rummy! You can claim one of these from the pile: 2♥, 9♦. Call it, or let it go.',
  );
  assert.equal(status({ view: { ...view, winner: 'P1' } }, { phase: 'game_over' }), 'Game over: you won.');
  assert.equal(status({ view: { ...view, winner: 'P3' } }, { phase: 'game_over' }), 'Game over: Cleo won.');
  assert.equal(status({}, { phase: 'hand_over' }), 'The hand is over.');
});

test("the page's own moves are said to its player in the second person, in every language", async () => {
  const i18n = await load('i18n.js');
  const name = (seat) => ({ P1: i18n.t('you'), P2: 'Ben' })[seat];
  const line = (event, pile = []) => describeEvent({ event, pile }, name, 'P1');
  const mine = (text, by = 'player') => ({ kind: 'move', ...moveData(text), by });
  assert.equal(line(mine('P1 draw')), 'You drew from the stock.');
  assert.equal(line(mine('P1 discard 7S')), 'You discarded 7♠.');
  assert.equal(line({ kind: 'deal', hand_number: 2, dealer: 'P1' }), 'Hand 2: you dealt.');
  assert.equal(line(mine('P2 discard 7S')), 'Ben discarded 7♠.', "another seat's move stays in the third person");
  try {
    await i18n.setLanguage('hu');
    assert.equal(line(mine('P1 draw')), 'Húztál a talonból.');
    assert.equal(line(mine('P1 discard 7S')), 'Eldobtad: 7♠.');
    assert.equal(line(mine('P1 meld 4H 5H 6H')), 'Kiraktad: 4♥ 5♥ 6♥.');
    assert.equal(line(mine('P1 take 2'), ['4C', '9D', 'KS']), 'Felvettél 2 lapot a dobópakliból, egészen eddig: 9♦.');
    assert.equal(line(mine('P2 draw')), 'Ben húzott a talonból.');
    await i18n.setLanguage('lo');
    assert.equal(line(mine('P1 draw')), 'ເຈົ້າຈົ່ວຈາກກອງຈົ່ວ.');
  } finally {
    await i18n.setLanguage('en');
  }
});

test('a rated table offers no undo and no hint: the toolbar says why, and the keys say it too', async () => {
  const { html } = await load('lib.js');
  const { Toolbar } = await load('toolbar.js');
  const { tableActions } = await load('table-actions.js');
  const ready = { draw: true, meld: false, layoff: false, discard: false };
  const legal = ['P1 draw', 'P1 take 1'].map(moveData);
  const toolbar = (rated) =>
    renderToString(
      html`<${Toolbar} legal=${legal} ready=${ready} canUndo=${false} undoOffered=${true} sortMode="custom" actions=${{}} rated=${rated} />`,
    );
  const casual = await toolbar(false);
  assert.match(casual, /data-action="undo"/);
  assert.match(casual, /data-action="hint"/);
  const rated = await toolbar(true);
  assert.doesNotMatch(rated, /data-action="undo"|data-action="hint"/);
  assert.match(textOf(rated), /Rated game: no undo, no hints\./);

  // the U and H keys (and anything else calling the actions) send nothing and say why
  const sent = [];
  const shown = [];
  const ui = {
    send: (message) => sent.push(message) > 0,
    move: () => 1,
    toasts: { show: (text) => shown.push(text) },
    choose: () => {},
    setHint: (hint) => shown.push(hint),
    select: () => {},
  };
  const table = { me: 'P1', view: null, legal, phase: 'draw', myTurn: true, selection: [], call: null, canUndo: true, features: new Set(['hint', 'undo']), values: 'standard', entries: [], online: true };
  const atRated = tableActions({ ...table, rated: true }, ui);
  atRated.undo();
  atRated.showHint();
  assert.deepEqual(sent, []);
  assert.deepEqual(shown, ['There is no undo in a rated game.', 'There are no hints in a rated game.']);
  const atCasual = tableActions({ ...table, rated: false }, ui);
  atCasual.undo();
  atCasual.showHint();
  assert.deepEqual(sent, [{ type: 'undo' }, { type: 'hint' }]);
});

test('undo with nothing to take back asks the server, whose refusal is the engine\'s reason (the page words no undo rule)', async () => {
  const { tableActions } = await load('table-actions.js');
  const sent = [];
  const shown = [];
  const ui = { send: (message) => sent.push(message) > 0, move: () => 1, toasts: { show: (text) => shown.push(text) }, choose: () => {}, setHint: () => {}, select: () => {} };
  const legal = ['P1 discard 9C'].map(moveData);
  const table = { me: 'P1', view: null, legal, phase: 'play', myTurn: true, selection: [], call: null, canUndo: false, features: new Set(['hint', 'undo']), values: 'standard', entries: [], online: true, rated: false };
  tableActions(table, ui).undo();
  assert.deepEqual(sent, [{ type: 'undo' }]);
  assert.deepEqual(shown, []);
});
