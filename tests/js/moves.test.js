// moves.js: which of the server's legal moves fit what the player picked, and the moves in words.
// The server sends every move as data beside its notation (moveData: what it sends).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, moveData } from './web.js';

const moves = await load('moves.js');

// P1's legal moves after drawing, with a hand of 7S 7H 7C JK 5H 6H KD and melds 1 (4D 5D 6D) and
// 2 (AC 2C 3C … QC, a run that takes the king or, at its low end, nothing)
const LEGAL = [
  'P1 meld 7C 7H 7S',
  'P1 meld 7C 7H 7S JK=7',
  'P1 meld 7H 7S JK=7',
  'P1 meld 5H 6H JK=7H',
  'P1 meld 5H 6H JK=4H',
  'P1 meld 5H 6H 7H',
  'P1 layoff JK=7D 1',
  'P1 layoff JK=3D 1',
  'P1 layoff JK=KC 2 high',
  'P1 layoff 7S 3',
  'P1 discard 7S',
  'P1 discard KD',
  'P1 discard JK',
].map(moveData);

test('a move is never read from its notation: the server sends its parts', () => {
  assert.equal(moves.parseMove, undefined);
  assert.deepEqual(moves.movesOf(LEGAL, 'layoff').at(-1), {
    move: 'P1 layoff 7S 3',
    seat: 'P1',
    verb: 'layoff',
    cards: ['7S'],
    number: 3,
    end: null,
  });
});

test('a selection allows the melds made of exactly its cards, in any order', () => {
  assert.deepEqual(moves.meldsFor(LEGAL, ['7s', '7H', '7C']).map((m) => m.move), ['P1 meld 7C 7H 7S']);
  // with the joker: every declaration of it is a choice the player makes
  assert.deepEqual(moves.meldsFor(LEGAL, ['6H', 'JK', '5H']).map((m) => m.move), [
    'P1 meld 5H 6H JK=7H',
    'P1 meld 5H 6H JK=4H',
  ]);
  assert.deepEqual(moves.meldsFor(LEGAL, ['7H', '7S']), [], 'two cards are no meld');
  assert.deepEqual(moves.meldsFor(LEGAL, ['7H', '7S', 'KD']), []);
  assert.deepEqual(moves.meldsFor([], ['7C', '7H', '7S']), [], 'not your turn: nothing fits');
});

test('a card may be laid off on the melds the legal moves name', () => {
  assert.deepEqual([...moves.layoffTargets(LEGAL, 'JK')].sort(), [1, 2]);
  assert.deepEqual([...moves.layoffTargets(LEGAL, '7s')], [3]);
  assert.deepEqual([...moves.layoffTargets(LEGAL, 'KD')], []);
  assert.deepEqual(moves.layoffsFor(LEGAL, 'JK', 1).map((m) => m.move), ['P1 layoff JK=7D 1', 'P1 layoff JK=3D 1']);
  assert.deepEqual(moves.layoffsFor(LEGAL, 'JK', 2).map((m) => m.end), ['high']);
});

test('discards, takes and Rummy calls come from the legal moves alone', () => {
  assert.ok(moves.canDiscard(LEGAL, 'kd'));
  assert.ok(!moves.canDiscard(LEGAL, '5H'));
  assert.ok(moves.has(LEGAL, 'meld'));
  assert.ok(!moves.has(LEGAL, 'draw'));
  const start = ['P1 draw', 'P1 take 1', 'P1 take 3'].map(moveData);
  assert.deepEqual([...moves.takeDepths(start)], [1, 3]);
  assert.deepEqual([...moves.rummyDepths(start)], []);
  assert.deepEqual([...moves.rummyDepths(['P3 rummy 2', 'P3 rummy 1', 'P3 pass'].map(moveData))].sort(), [1, 2]);
  assert.equal(moves.movesOf(start, 'take').length, 2);
});

test('a selection that fits no legal meld is sent as it is, for the server to say why', () => {
  assert.equal(moves.meldAttempt('P2', ['5H', '9H', '2S']), 'P2 meld 5H 9H 2S');
});

test('choices among moves are described in words with suit symbols', () => {
  assert.equal(moves.describeOption(moveData('P1 meld 5H 6H 7H')), 'Meld 5♥ 6♥ 7♥');
  assert.equal(moves.describeOption(moveData('P1 meld 5H 6H JK=4H')), 'Meld 5♥ 6♥ Joker=4♥ — joker as 4♥');
  assert.equal(moves.describeOption(moveData('P1 meld 7H 7S JK=7')), 'Meld 7♥ 7♠ Joker=7 — joker as one of the 7s');
  assert.equal(moves.describeOption(moveData('P1 layoff 7S 3')), 'Lay off 7♠ on meld 3');
  assert.equal(moves.describeOption(moveData('P1 layoff JK=KC 2 high')), 'Lay off Joker=K♣ on meld 2 (joker as K♣, at the high end)');
  assert.equal(moves.describeOption(moveData('P1 layoff AS 1 low')), 'Lay off A♠ on meld 1 (at the low end)');
  const pile = ['KC', '9D', '3S', 'QH'];
  assert.equal(moves.describeOption(moveData('P1 take 1'), pile), 'Take the top card (Q♥)');
  assert.equal(moves.describeOption(moveData('P1 take 3'), pile), 'Take 3 cards, down to the 9♦');
  assert.equal(moves.describeOption(moveData('P2 rummy 2'), pile), 'Take 2 cards, down to the 3♠');
  assert.equal(moves.describeOption(moveData('P2 rummy 9'), pile), 'Take 9 cards, down to the ?');
});

test('what happened is said with the players\' names, never their seats', () => {
  const name = (seat) => ({ P1: 'Ann', P2: 'Ben' })[seat];
  const pile = ['KC', '9D', '3S', 'QH'];
  assert.equal(moves.describeMove(moveData('P1 draw'), name), 'Ann drew from the stock.');
  assert.equal(moves.describeMove(moveData('P2 take 1'), name, pile), 'Ben took the Q♥ from the discard pile.');
  assert.equal(moves.describeMove(moveData('P2 take 3'), name, pile), 'Ben took 3 cards from the discard pile, down to the 9♦.');
  assert.equal(moves.describeMove(moveData('P2 take 3'), name, []), 'Ben took 3 cards from the discard pile.');
  assert.equal(moves.describeMove(moveData('P1 meld 9S TS JS'), name), 'Ann melded 9♠ 10♠ J♠.');
  assert.equal(moves.describeMove(moveData('P1 layoff JK=QS 2'), name), 'Ann laid off Joker=Q♠ on meld 2.');
  assert.equal(moves.describeMove(moveData('P2 discard TD'), name), 'Ben discarded 10♦.');
  assert.equal(moves.describeMove(moveData('P2 rummy 1'), name), 'Ben called Rummy! and took the top card.');
  assert.equal(moves.describeMove(moveData('P2 rummy 2'), name), 'Ben called Rummy! and took 2 cards.');
  assert.equal(moves.describeMove(moveData('P1 end'), name), 'Ann ended the hand.');
  assert.equal(moves.describeMove(moveData('P1 pass'), name), 'Ann let the Rummy call go.');
});

test('a hint from the legal moves: Rummy first, then a deep take, a fitting top card, else draw', () => {
  const view = { hand: ['7S', '7H', '2D', 'KC'], discard_pile: ['3C', '9H', '7C'] };
  assert.equal(moves.simpleHint([], view), null, 'no legal move: no hint');
  assert.equal(moves.simpleHint(['P1 draw'].map(moveData), null), null);
  assert.deepEqual(moves.simpleHint(['P1 rummy 3', 'P1 rummy 1', 'P1 pass'].map(moveData), view), {
    move: 'P1 rummy 1',
    text: 'call Rummy! and take 1 from the pile.',
  });
  assert.equal(moves.simpleHint(['P1 draw', 'P1 take 1', 'P1 take 3'].map(moveData), view).move, 'P1 take 3');
  // the 7♣ on top makes a group with the 7♠ and 7♥
  assert.equal(moves.simpleHint(['P1 draw', 'P1 take 1'].map(moveData), view).text, 'take the 7♣ from the pile: it fits your hand.');
  const other = { hand: ['7S', '7H', '2D', 'KC'], discard_pile: ['3C', '9H', 'QD'] };
  assert.equal(moves.simpleHint(['P1 draw', 'P1 take 1'].map(moveData), other).move, 'P1 draw');
});

test('a hint after drawing: the longest natural meld, then a lay-off, else the dearest loose card', () => {
  const view = { hand: ['7C', '7H', '7S', 'JK', '5H', '6H', 'KD'], discard_pile: ['2S'] };
  const meld = moves.simpleHint(LEGAL, view);
  assert.equal(meld.move, 'P1 meld 7C 7H 7S');
  assert.deepEqual(meld.cards, ['7C', '7H', '7S']);
  const layoff = moves.simpleHint(['P1 layoff 7S 3', 'P1 discard 7S'].map(moveData), view);
  assert.deepEqual(layoff, { move: 'P1 layoff 7S 3', text: 'lay off the 7♠ on meld 3.', cards: ['7S'] });
  // 5♥ 6♥ keep each other; the K♦ fits nothing and is worth most
  const hand = { hand: ['5H', '6H', '7D', '2C', 'KD'], discard_pile: [] };
  const discards = hand.hand.map((c) => moveData(`P1 discard ${c}`));
  assert.equal(moves.simpleHint(discards, hand).move, 'P1 discard KD');
  assert.equal(moves.simpleHint(['P1 end'].map(moveData), hand).text, 'end the hand: the stock is empty.');
});

test('a hint the server sends is said in words, with the hand cards it uses', () => {
  assert.deepEqual(moves.hintFor(moveData('P1 meld JK=9 9S 9D')), {
    move: 'P1 meld JK=9 9S 9D',
    text: 'meld Joker=9 9♠ 9♦.',
    cards: ['JK', '9S', '9D'],
  });
  assert.equal(moves.hintFor(moveData('P1 take 2'), ['AS', '4D', '8C']).text, 'take 2 cards from the pile, down to the 4♦, and meld it.');
  assert.equal(moves.hintFor(moveData('P1 take 1'), ['AS', '4D', '8C']).text, 'take the 8♣ from the pile: it fits your hand.');
  assert.deepEqual(moves.hintFor(moveData('P1 layoff JK=8H 1')).cards, ['JK']);
});

test('a refusal names the seats as the page does and writes its cards with suit symbols', () => {
  const nameOf = (seat) => ({ P1: 'Ann', P4: 'Computer P4' })[seat];
  const message = {
    message: "it is P4's turn, not P1's: 5H 9H 2S is neither a group nor a run, nor is JK=10S",
    reason: { code: 'not_your_turn', params: { seat: 0, other: 3 } },
  };
  assert.equal(
    moves.refusalText(message, nameOf),
    "it is Computer P4's turn, not Ann's: 5♥ 9♥ 2♠ is neither a group nor a run, nor is Joker=10♠",
  );
  // seats the reason does not name stay as they are (a P12 is not a P1)
  assert.equal(moves.refusalText({ message: 'P12 and P1', reason: { params: {} } }, nameOf), 'P12 and P1');
  assert.equal(moves.refusalText({ message: 'P12 and P1', reason: { params: { seat: 0 } } }, nameOf), 'P12 and Ann');
  assert.equal(moves.refusalText({}, nameOf), '');
});
