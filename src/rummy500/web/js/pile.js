// The middle of the table: the stock (face down) and the discard pile, spread so that every card
// in it can be seen and taken (the deep take: a card and every card above it).
import { html, cls, useEffect, useRef } from './lib.js';
import { t } from './i18n.js';
import { Card, cardName } from './cards.js';

/**
 * A spectator's stock, pile and melds are pictures at full contrast, not buttons it cannot press:
 * the element to use and its props.
 */
export function pressable(spectator, onClick) {
  return spectator ? ['div', { role: 'img' }] : ['button', { onClick }];
}

export function Stock({ size, spectator, legal, hinted, onDraw }) {
  const [Tag, props] = pressable(spectator, onDraw);
  return html`<${Tag}
    class=${cls('stock', legal && 'legal', hinted && 'hinted')}
    data-stock
    aria-label=${t('stock.label', { n: size })}
    ...${props}
  >
    ${size > 0 ? html`<${Card} back=${true} />` : html`<span class="card empty"></span>`}
    <span class="stock-count" aria-hidden="true">${size}</span>
  <//>`;
}

/**
 * The pile, top card last. `legalDepths` the depths a legal take or call reaches; `hintedDepth`
 * the one a hint names; `discarding` the card the player would discard by pressing the top card.
 */
export function DiscardPile({ pile, spectator, legalDepths, hintedDepth, discarding, dropLegal, onTake }) {
  const ref = useRef(null);
  usePileSpread(ref, pile.length);
  return html`<div
    class=${cls('pile', dropLegal && 'drop-legal')}
    ref=${ref}
    data-drop="pile"
    role="group"
    aria-label=${t('pile.label', { n: pile.length })}
  >
    ${pile.length === 0 && html`<span class="card empty" aria-hidden="true"></span>`}
    ${pile.map((card, i) => {
      const depth = pile.length - i;
      const label =
        discarding && depth === 1
          ? t('pile.discard.here', { card: cardName(discarding), top: cardName(card) })
          : depth === 1
            ? t('pile.card.top', { card: cardName(card) })
            : t('pile.card', { card: cardName(card), n: depth });
      const [Tag, props] = pressable(spectator, () => onTake(depth));
      return html`<${Tag}
        key=${`${i}-${card}`}
        class=${cls('card-button', 'pile-card', legalDepths.has(depth) && 'legal', hintedDepth === depth && 'hinted', depth === 1 && 'top')}
        data-depth=${depth}
        data-card=${card}
        aria-label=${label}
        ...${props}
      >
        <${Card} text=${card} />
      <//>`;
    })}
  </div>`;
}

/** Spread the discard pile over the width it has: each deep card shows as much as the row
 * allows (whole cards when they fit), never less than a strip a finger can hit on a touch screen;
 * the cards wrap to a second row only then. Sets the pile's --pile-overlap (CSSOM, not a style
 * attribute: the Content-Security-Policy allows no inline styles). */
function usePileSpread(ref, count) {
  useEffect(() => {
    const pile = ref.current;
    if (!pile) return undefined;
    const fit = () => {
      const card = pile.querySelector('.pile-card');
      if (!card || count < 2) {
        pile.style.removeProperty('--pile-overlap');
        return;
      }
      const width = card.getBoundingClientRect().width;
      const em = parseFloat(getComputedStyle(pile).fontSize) || 16;
      const room = pile.clientWidth - 0.8 * em - 2;
      const touch = window.matchMedia && window.matchMedia('(pointer: coarse)').matches;
      const least = width * (touch ? 0.62 : 0.45);
      const step = Math.max(least, Math.min(width + 6, (room - width) / (count - 1)));
      pile.style.setProperty('--pile-overlap', `${Math.round((width - step) * 10) / 10}px`);
    };
    fit();
    const watch = typeof ResizeObserver === 'function' ? new ResizeObserver(fit) : null;
    if (watch) watch.observe(pile);
    return () => watch && watch.disconnect();
  });
}
