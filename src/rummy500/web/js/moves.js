// Moves (docs/notation.md), as the server sends them: beside its notation (`move`) each move
// comes with its parts (`seat`, `verb`, `cards`, `number`, `end`: docs/protocol.md, "Moves as
// data"), so nothing here reads notation. Finding the legal moves that fit what the player
// picked (a selection of cards, a card and a meld), describing them in words, and a simple hint.
// Nothing here decides what is legal: the server sends the legal moves and judges every move.
import { t } from './i18n.js';
import { baseCard, cardShort, cardValue, isJoker, parsePlayed, rankOf, suitOf, RANKS } from './cards.js';

function multiset(cards) {
  return [...cards].map((c) => c.toUpperCase()).sort().join(' ');
}

/** The legal moves of a verb (`legal`: the server's `legal_moves`). */
export function movesOf(legal, verb) {
  return legal.filter((m) => m.verb === verb);
}

/** Legal melds made of exactly the selected cards (hand codes such as 'JK', '8H'). */
export function meldsFor(legal, selected) {
  const want = multiset(selected);
  return movesOf(legal, 'meld').filter((m) => multiset(m.cards.map(baseCard)) === want);
}

/** Legal lay-offs of the hand card `card` on meld `number` (any meld when number is null). */
export function layoffsFor(legal, card, number = null) {
  return movesOf(legal, 'layoff').filter(
    (m) => baseCard(m.cards[0]) === card.toUpperCase() && (number === null || m.number === number),
  );
}

/** The meld numbers the hand card `card` may be laid off on now. */
export function layoffTargets(legal, card) {
  return new Set(layoffsFor(legal, card).map((m) => m.number));
}

/** The depths the discard pile may be taken down to now (take N), and called (rummy N). */
export function takeDepths(legal) {
  return new Set(movesOf(legal, 'take').map((m) => m.number));
}

export function rummyDepths(legal) {
  return new Set(movesOf(legal, 'rummy').map((m) => m.number));
}

export function canDiscard(legal, card) {
  return movesOf(legal, 'discard').some((m) => m.cards[0] === card.toUpperCase());
}

/** Whether the legal moves hold the verb. */
export function has(legal, verb) {
  return legal.some((m) => m.verb === verb);
}

/**
 * The move to send for a selection when no legal move fits it: the server then says why it is
 * not allowed (the engine's reason). Jokers go undeclared.
 */
export function meldAttempt(seat, selected) {
  return `${seat} meld ${selected.join(' ')}`;
}

/** Words for one option among several (a joker's declaration, the end of a run, a depth). */
export function describeOption(m, pile = []) {
  if (m.verb === 'meld') {
    const jokers = m.cards.filter(isJoker).map((c) => parsePlayed(c).as);
    const cards = m.cards.map(cardShort).join(' ');
    if (!jokers.length) return t('option.meld', { cards });
    return t('option.meld.jokers', { cards, jokers: jokers.map(declaration).join(', ') });
  }
  if (m.verb === 'layoff') {
    const card = m.cards[0];
    const parts = [];
    if (isJoker(card)) parts.push(t('option.joker.as', { as: declaration(parsePlayed(card).as) }));
    if (m.end) parts.push(t(m.end === 'low' ? 'option.end.low' : 'option.end.high'));
    return parts.length
      ? t('option.layoff.with', { card: cardShort(card), meld: m.number, how: parts.join(', ') })
      : t('option.layoff', { card: cardShort(card), meld: m.number });
  }
  if (m.verb === 'rummy' || m.verb === 'take') {
    const deepest = pile.length >= m.number ? pile[pile.length - m.number] : null;
    return t(m.verb === 'rummy' ? 'option.rummy' : 'option.take', {
      n: m.number,
      card: deepest ? cardShort(deepest) : '?',
    });
  }
  return m.move;
}

function declaration(as) {
  if (!as) return '?';
  return as.length > 1 ? cardShort(as) : t('option.joker.rank', { rank: t(`rank.plural.${as}`) });
}

/** A move that happened (an update's `event`, a replay's move), in words: 'Bob melded 9♠ 10♠
 * J♠'. `name` gives a seat's name; the move of `me` (the page's player) is said in the second
 * person ('You melded …'), a sentence of its own in every language. */
export function describeMove(m, name, pile = [], me = null) {
  const mine = !!me && m.seat === me;
  const who = name(m.seat);
  const cards = m.cards.map(cardShort).join(' ');
  const say = (key, keyMine, vars = {}) => (mine ? t(keyMine, vars) : t(key, { who, ...vars }));
  switch (m.verb) {
    case 'draw':
      return say('event.draw', 'event.draw.you');
    case 'take':
      return pile.length >= m.number
        ? say('event.take', 'event.take.you', { n: m.number, card: cardShort(pile[pile.length - m.number]) })
        : say('event.take.some', 'event.take.some.you', { n: m.number });
    case 'meld':
      return say('event.meld', 'event.meld.you', { cards });
    case 'layoff':
      return say('event.layoff', 'event.layoff.you', { card: cards, meld: m.number });
    case 'discard':
      return say('event.discard', 'event.discard.you', { card: cards });
    case 'rummy':
      return say('event.rummy', 'event.rummy.you', { n: m.number });
    case 'end':
      return say('event.end', 'event.end.you');
    case 'pass':
      return say('event.pass', 'event.pass.you');
    default:
      return m.move;
  }
}

// --- hints -------------------------------------------------------------------------------------

/** A suggested move in words, with the hand cards it uses: { move (its notation), text, cards }. */
export function hintFor(m, pile = []) {
  const text = m.move;
  const deepest = pile.length >= m.number && m.number > 0 ? cardShort(pile[pile.length - m.number]) : '';
  switch (m.verb) {
    case 'rummy':
      return { move: text, text: t('hint.rummy', { n: m.number }) };
    case 'take':
      return { move: text, text: m.number > 1 ? t('hint.take.deep', { n: m.number, card: deepest }) : t('hint.take.top', { card: deepest }) };
    case 'draw':
      return { move: text, text: t('hint.draw') };
    case 'meld':
      return { move: text, text: t('hint.meld', { cards: m.cards.map(cardShort).join(' ') }), cards: m.cards.map(baseCard) };
    case 'layoff':
      return { move: text, text: t('hint.layoff', { card: cardShort(m.cards[0]), meld: m.number }), cards: [baseCard(m.cards[0])] };
    case 'discard':
      return { move: text, text: t('hint.discard', { card: cardShort(m.cards[0]) }), cards: [m.cards[0]] };
    case 'end':
      return { move: text, text: t('hint.end') };
    case 'pass':
      return { move: text, text: t('hint.pass') };
    default:
      return { move: text, text };
  }
}

// --- a simple hint, from the legal moves alone ----------------------------------------------

/** Whether `card` would make a meld with two cards of `hand` (same rank, or a short run). */
function fitsHand(card, hand) {
  if (card === 'JK') return true;
  const rank = RANKS.indexOf(rankOf(card));
  const suit = suitOf(card);
  const sameRank = new Set(hand.filter((c) => c !== 'JK' && rankOf(c) === rankOf(card)).map(suitOf));
  sameRank.delete(suit);
  if (sameRank.size >= 2) return true;
  const near = (d) =>
    hand.some((c) => c !== 'JK' && suitOf(c) === suit && RANKS.indexOf(rankOf(c)) === rank + d);
  return (near(-1) && near(1)) || (near(-1) && near(-2)) || (near(1) && near(2));
}

/**
 * A suggestion from the legal moves: call Rummy, take when the top card fits, the longest meld,
 * a lay-off, else discard the highest card that fits nothing. Returns { move, text } or null.
 * (The server's expert bot would do better: see docs/web-needs.md.)
 */
export function simpleHint(legal, view, values = 'standard') {
  if (!legal.length || !view) return null;
  const moves = legal;
  const pile = view.discard_pile || [];
  const hand = view.hand || [];
  const rummy = moves.filter((m) => m.verb === 'rummy');
  if (rummy.length) {
    const m = rummy.reduce((a, b) => (a.number <= b.number ? a : b));
    return { move: m.move, text: t('hint.rummy', { n: m.number }) };
  }
  const takes = moves.filter((m) => m.verb === 'take' && m.number > 1);
  if (takes.length) {
    const m = takes.reduce((a, b) => (a.number <= b.number ? a : b));
    return { move: m.move, text: t('hint.take.deep', { n: m.number, card: cardShort(pile[pile.length - m.number]) }) };
  }
  const top = pile.at(-1);
  if (moves.some((m) => m.verb === 'take' && m.number === 1) && top && fitsHand(top, hand)) {
    return { move: moves.find((m) => m.verb === 'take').move, text: t('hint.take.top', { card: cardShort(top) }) };
  }
  if (moves.some((m) => m.verb === 'draw')) {
    return { move: moves.find((m) => m.verb === 'draw').move, text: t('hint.draw') };
  }
  const melds = moves.filter((m) => m.verb === 'meld');
  if (melds.length) {
    const natural = melds.filter((m) => !m.cards.some(isJoker));
    const pool = natural.length ? natural : melds;
    const m = pool.reduce((a, b) => (b.cards.length > a.cards.length ? b : a));
    return { move: m.move, text: t('hint.meld', { cards: m.cards.map(cardShort).join(' ') }), cards: m.cards.map(baseCard) };
  }
  const layoffs = moves.filter((m) => m.verb === 'layoff');
  if (layoffs.length) {
    const m = layoffs[0];
    return { move: m.move, text: t('hint.layoff', { card: cardShort(m.cards[0]), meld: m.number }), cards: [baseCard(m.cards[0])] };
  }
  const discards = moves.filter((m) => m.verb === 'discard');
  if (discards.length) {
    const scored = discards.map((m) => {
      const card = m.cards[0];
      const rest = hand.filter((c, i) => i !== hand.indexOf(card));
      return { m, keep: fitsHand(card, rest) ? 1 : 0, value: cardValue(card, values) };
    });
    scored.sort((a, b) => a.keep - b.keep || b.value - a.value);
    const m = scored[0].m;
    return { move: m.move, text: t('hint.discard', { card: cardShort(m.cards[0]) }), cards: [m.cards[0]] };
  }
  if (moves.some((m) => m.verb === 'end')) return { move: moves.find((m) => m.verb === 'end').move, text: t('hint.end') };
  if (moves.some((m) => m.verb === 'pass')) return { move: moves.find((m) => m.verb === 'pass').move, text: t('hint.pass') };
  return null;
}


const NOTATION_CARD = /\b(?:JK=(?:10|[2-9TJQKA])[HSDC]?|JK|(?:10|[2-9TJQKA])[HSDC])(?![\w=])/g;

/** A refusal from the server in this page's words: the server's sentence, with each seat its
 * reason names (`seat`, `other`: 0-based) called as the page calls it ("Computer P2", not
 * "P2"), and any card still in notation ("5H") written with its suit symbol ("5♥"). */
export function refusalText(message, nameOf) {
  let text = message.message || '';
  const params = (message.reason && message.reason.params) || {};
  for (const key of ['seat', 'other']) {
    if (typeof params[key] !== 'number') continue;
    const seat = `P${params[key] + 1}`;
    text = text.replace(new RegExp(`\\b${seat}\\b`, 'g'), () => nameOf(seat));
  }
  return text.replace(NOTATION_CARD, (code) => cardShort(code.replace('10', 'T')));
}
