// cards.js: cards in notation read, named, valued and sorted as the player sees them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, renderToString } from './web.js';

const cards = await load('cards.js');
const { html } = await load('lib.js');

test('a card is written with its suit symbol, a ten as 10', () => {
  assert.equal(cards.cardShort('TD'), '10♦');
  assert.equal(cards.cardShort('QH'), 'Q♥');
  assert.equal(cards.cardShort('AS'), 'A♠');
  assert.equal(cards.cardShort('2C'), '2♣');
});

test('a joker is written with what it stands for on the table', () => {
  assert.equal(cards.cardShort('JK'), 'Joker');
  assert.equal(cards.cardShort('JK=8H'), 'Joker=8♥');
  assert.equal(cards.cardShort('jk=9'), 'Joker=9');
});

test('cards are named in words for screen readers', () => {
  assert.equal(cards.cardName('QH'), 'queen of hearts');
  assert.equal(cards.cardName('TS'), '10 of spades');
  assert.equal(cards.cardName('JK'), 'joker');
  assert.equal(cards.cardName('JK=AC'), 'joker as the ace of clubs');
  assert.equal(cards.cardName('JK=9'), 'joker as one of the 9s');
});

test('a list of cards is joined with commas and "and"', () => {
  assert.equal(cards.cardList([]), '');
  assert.equal(cards.cardList(['9S']), '9 of spades');
  assert.equal(cards.cardList(['9S', 'TS', 'JS']), '9 of spades, 10 of spades and jack of spades');
});

test('the played card leaves the hand as itself, a declared joker as JK', () => {
  assert.deepEqual(cards.parsePlayed('jk=8h'), { card: 'JK', as: '8H' });
  assert.deepEqual(cards.parsePlayed('7d'), { card: '7D', as: null });
  assert.equal(cards.baseCard('JK=9'), 'JK');
  assert.ok(cards.isJoker('JK=9'));
  assert.ok(!cards.isJoker('JD'));
  assert.ok(cards.isRed('8H') && cards.isRed('KD'));
  assert.ok(!cards.isRed('8S') && !cards.isRed('JK'));
});

test('card values: aces and jokers 15, court cards 10, pips their rank or 5', () => {
  assert.equal(cards.cardValue('AS'), 15);
  assert.equal(cards.cardValue('JK'), 15);
  assert.equal(cards.cardValue('KD'), 10);
  assert.equal(cards.cardValue('TC'), 10);
  assert.equal(cards.cardValue('7H'), 7);
  assert.equal(cards.cardValue('7H', '5-10-15'), 5);
  assert.equal(cards.cardValue('QH', '5-10-15'), 10);
  assert.equal(cards.cardValue('AH', '5-10-15'), 15);
});

test('sorting by suit keeps the clubs-diamonds-hearts-spades order, jokers last', () => {
  const hand = ['KS', 'JK', '2H', 'AS', 'TD', '3C', '9H'];
  assert.deepEqual(cards.sortCards(hand), ['3C', 'TD', '2H', '9H', 'AS', 'KS', 'JK']);
  assert.deepEqual(cards.sortCards(hand, 'rank'), ['AS', '2H', '3C', '9H', 'TD', 'KS', 'JK']);
  assert.deepEqual(hand[0], 'KS', 'the hand itself is not sorted in place');
});

test('sorting by a key sorts objects that carry cards', () => {
  const held = [{ id: 1, card: '5S' }, { id: 2, card: '5C' }, { id: 3, card: 'AC' }];
  const sorted = cards.sortCards(held, 'rank', (x) => x.card).map((x) => x.id);
  assert.deepEqual(sorted, [3, 2, 1]);
});

test('a face shows its rank in the corners; a joker on the table shows what it stands for', async () => {
  const seven = await renderToString(html`<${cards.CardFace} text="7H" />`);
  assert.match(seven, /aria-hidden="true"/);
  assert.match(seven, /class="face red"/);
  assert.match(seven, /#suit-H/);
  assert.equal((seven.match(/>7</g) || []).length, 1, 'the index is drawn once…');
  assert.equal((seven.match(/<use href="#face-[^"]+-corner"/g) || []).length, 2, '…in both corners');
  const queen = await renderToString(html`<${cards.CardFace} text="QS" />`);
  assert.match(queen, /class="face black"/);
  assert.match(queen, /<use href="#face-[^"]+-court" class="court-letter"/);
  const joker = await renderToString(html`<${cards.CardFace} text="JK=8H" />`);
  assert.match(joker, /class="face joker"/);
  assert.match(joker, /#suit-H/);
  assert.match(joker, />8</);
  assert.match(joker, /JOKER/);
  const back = await renderToString(html`<${cards.CardFace} text="7H" back />`);
  assert.match(back, /class="face back"/);
  assert.doesNotMatch(back, /#suit-H/, 'a back tells nothing of the card');
});
