import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './web.js';

const cards = await load('cards.js');

test('cards in words and with suit symbols', () => {
  assert.equal(cards.cardShort('TD'), '10♦');
  assert.equal(cards.cardShort('QH'), 'Q♥');
  assert.equal(cards.cardShort('JK'), 'Joker');
  assert.equal(cards.cardName('QH'), 'queen of hearts');
  assert.equal(cards.cardName('AS'), 'ace of spades');
});
