// Cards in notation (docs/notation.md: '8H', 'TD', 'JK', on the table 'JK=8H' or 'JK=9'), their
// names in words, their order, and their faces (drawn here as SVG: no image files).
import { html, cls, useId } from './lib.js';
import { t } from './i18n.js';

export const RANKS = 'A23456789TJQK';
export const SUITS = 'CDHS';
export const JOKER = 'JK';
const RED = new Set(['D', 'H']);

/** A card as played on the table: { card: 'JK' or the natural card, as: '8H' | '9' | null }. */
export function parsePlayed(text) {
  const up = text.toUpperCase();
  if (up.startsWith('JK=')) return { card: JOKER, as: up.slice(3) };
  return { card: up, as: null };
}

/** The card that leaves the hand for a played card: 'JK=8H' -> 'JK'. */
export function baseCard(text) {
  return parsePlayed(text).card;
}

export function isJoker(text) {
  return baseCard(text) === JOKER;
}

export function rankOf(card) {
  return card[0];
}

export function suitOf(card) {
  return card.length > 1 ? card[1] : '';
}

export function isRed(card) {
  return RED.has(suitOf(card));
}

/** 'T' -> '10' (and a translated letter for the court cards and the ace). */
export function rankShort(rank) {
  return t(`rank.short.${rank}`);
}

export function suitSymbol(suit) {
  return { C: '♣', D: '♦', H: '♥', S: '♠' }[suit] || '';
}

/** Short text of a card as played: '8♥', '10♠', 'Joker', 'Joker=8♥'. */
export function cardShort(text) {
  const { card, as } = parsePlayed(text);
  if (card === JOKER) {
    if (!as) return t('card.joker.short');
    return t('card.joker.as.short', { as: as.length > 1 ? cardShort(as) : rankShort(as) });
  }
  return rankShort(rankOf(card)) + suitSymbol(suitOf(card));
}

/** The card's name in words, for screen readers and messages: 'queen of hearts'. */
export function cardName(text) {
  const { card, as } = parsePlayed(text);
  if (card === JOKER) {
    if (!as) return t('card.joker');
    if (as.length === 1) return t('card.joker.as.rank', { rank: t(`rank.plural.${as}`) });
    return t('card.joker.as', { card: cardName(as) });
  }
  return t('card.name', { rank: t(`rank.name.${rankOf(card)}`), suit: t(`suit.name.${suitOf(card)}`) });
}

/** A list of cards in words: 'the 9 of spades, the 10 of spades and the jack of spades'. */
export function cardList(cards) {
  const names = cards.map(cardName);
  if (names.length <= 1) return names.join('');
  return t('list.and', { items: names.slice(0, -1).join(t('list.separator')), last: names.at(-1) });
}

/** Points of a card left in a hand or melded (docs/rules.md §2: an ace 15 unless low in a run). */
export function cardValue(card, values = 'standard') {
  if (card === JOKER) return 15;
  const rank = rankOf(card);
  if (rank === 'A') return 15;
  if ('TJQK'.includes(rank)) return 10;
  return values === '5-10-15' ? 5 : Number(rank);
}

function rankIndex(card) {
  return card === JOKER ? 13 : RANKS.indexOf(rankOf(card));
}

function suitIndex(card) {
  return card === JOKER ? 4 : SUITS.indexOf(suitOf(card));
}

/** Cards sorted by suit (then rank) or by rank (then suit); jokers last. */
export function sortCards(cards, by = 'suit', key = (c) => c) {
  const order = (x) => {
    const c = key(x);
    return by === 'rank'
      ? rankIndex(c) * 10 + suitIndex(c)
      : suitIndex(c) * 100 + rankIndex(c);
  };
  return [...cards].sort((a, b) => order(a) - order(b));
}

// --- faces -----------------------------------------------------------------------------------

function Suit({ suit, x, y, size }) {
  return html`<use href=${`#suit-${suit}`} x=${x} y=${y} width=${size} height=${size} />`;
}

function Corner({ rank, suit, color, id }) {
  return html`<g id=${id}>
    <text x="11" y="25" text-anchor="middle" class="rank" fill=${color}>${rankShort(rank)}</text>
    <${Suit} suit=${suit} x="3" y="30" size="16" />
  </g>`;
}

/**
 * The face of a card as SVG (decorative: the button around it carries the name). `text` may be
 * a played joker ('JK=8H'): the face then shows what it stands for in a corner badge.
 */
export function CardFace({ text, back = false }) {
  // the glyphs of a face (its index, the court letter, the joker's marks) are drawn from <defs>
  // with <use>: a picture, not text beside the button's name (axe: label-content-name-mismatch);
  // each <use> carries the class, so its copy inherits the font of .face .rank and the others
  const id = `face-${useId()}`;
  if (back) {
    return html`<svg class="face back" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
      <rect x="1" y="1" width="98" height="138" rx="8" class="back-rim" />
      <rect x="7" y="7" width="86" height="126" rx="5" fill="url(#card-back)" class="back-field" />
    </svg>`;
  }
  const { card, as } = parsePlayed(text);
  if (card === JOKER) {
    // a joker on the table shows what it stands for in its corner (the part that shows when
    // the cards of a meld overlap)
    const rank = as ? as[0] : null;
    const suit = as && as.length > 1 ? as[1] : null;
    return html`<svg class="face joker" viewBox="0 0 100 140" aria-hidden="true" focusable="false" style="color:#6a1b9a">
      <defs>
        <text id=${`${id}-mark`} x="11" y="25" text-anchor="middle">${rank ? rankShort(rank) : '★'}</text>
        <text id=${`${id}-small`} x="11" y="44" text-anchor="middle">★</text>
        <text id=${`${id}-word`} x="52" y="114" text-anchor="middle">${t('card.joker.face')}</text>
      </defs>
      <rect x="1" y="1" width="98" height="138" rx="8" class="paper" />
      <use href=${`#${id}-mark`} class="rank joker-mark" />
      ${suit
        ? html`<${Suit} suit=${suit} x="3" y="30" size="16" />`
        : rank && html`<use href=${`#${id}-small`} class="joker-small" />`}
      <use href="#joker" x="22" y="34" width="60" height="60" />
      <use href=${`#${id}-word`} class="joker-word" />
    </svg>`;
  }
  const rank = rankOf(card);
  const suit = suitOf(card);
  const color = isRed(card) ? 'var(--red-suit)' : 'var(--black-suit)';
  const court = 'JQK'.includes(rank);
  return html`<svg
    class=${cls('face', isRed(card) ? 'red' : 'black')}
    viewBox="0 0 100 140"
    aria-hidden="true"
    focusable="false"
    style=${`color:${color}`}
  >
    <defs>
      <${Corner} rank=${rank} suit=${suit} color=${color} id=${`${id}-corner`} />
      ${court &&
      html`<text id=${`${id}-court`} x="50" y="82" text-anchor="middle" class="court-letter" fill=${color}>
        ${rankShort(rank)}
      </text>`}
    </defs>
    <rect x="1" y="1" width="98" height="138" rx="8" class="paper" />
    <use href=${`#${id}-corner`} class="rank" />
    <use href=${`#${id}-corner`} class="rank" transform="rotate(180 50 70)" />
    ${court
      ? html`<g>
          <rect x="26" y="30" width="48" height="80" rx="5" class="court" />
          <use href=${`#${id}-court`} class="court-letter" />
          <${Suit} suit=${suit} x="40" y="88" size="20" />
        </g>`
      : html`<${Suit}
          suit=${suit}
          x=${rank === 'A' ? 22 : 28}
          y=${rank === 'A' ? 42 : 48}
          size=${rank === 'A' ? 56 : 44}
        />`}
  </svg>`;
}

/** A card on the table: its face (or back) in the box the table's layout sizes. */
export function Card({ text, back, className, ...rest }) {
  return html`<span class=${cls('card', className)} ...${rest}><${CardFace} text=${text} back=${back} /></span>`;
}
