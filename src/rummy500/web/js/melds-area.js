// The melds on the table, each card marked with who played it; a meld a selected (or dragged)
// card can be laid off on is highlighted and takes a click or a drop.
import { html, cls } from './lib.js';
import { t } from './i18n.js';
import { Card, cardName } from './cards.js';
import { seatColorClass } from './seat-colors.js';
import { pressable } from './pile.js';

/**
 * `targets`: the numbers of the melds the selected card may be laid off on; `hinted`: the one a
 * hint names; `name(seat)` and `badge(seat)` say who played a card (in words, in short); `me`: the
 * page's player.
 */
export function MeldsArea({ melds, spectator, targets, hinted, dragging, name, badge, me = null, onLayOff }) {
  // a card the page's player played is said in the second person
  const cardBy = (card, seat) => (me && seat === me ? t('meld.card.you', { card }) : t('meld.card', { card, who: name(seat) }));
  const playedBy = (seat) => (me && seat === me ? t('meld.by.you') : t('meld.by', { who: name(seat) }));
  return html`<section
    class=${cls('melds', dragging && 'drop-zone')}
    data-drop="melds"
    aria-label=${t('melds.label', { n: melds.length })}
  >
    ${melds.length === 0 && html`<p class="muted melds-empty">${t('melds.none')}</p>`}
    ${melds.map((m) => {
      const owner = m.played_by[0];
      const parts = m.cards.map((c, i) => cardBy(cardName(c), m.played_by[i]));
      const [Tag, props] = pressable(spectator, () => onLayOff(m.number));
      return html`<${Tag}
        key=${m.number}
        class=${cls('meld', targets.has(m.number) && 'legal drop-legal', hinted === m.number && 'hinted', seatColorClass(owner))}
        data-drop="meld"
        data-meld=${m.number}
        aria-label=${t(m.run ? 'meld.label.run' : 'meld.label.group', { n: m.number, cards: parts.join('; ') })}
        ...${props}
      >
        <span class="meld-number" aria-hidden="true">${m.number}</span>
        <span class="meld-cards" aria-hidden="true">
          ${m.cards.map(
            (c, i) => html`<span key=${`${i}-${c}`} class=${cls('meld-card', seatColorClass(m.played_by[i]))} title=${playedBy(m.played_by[i])}>
              <${Card} text=${c} />
              <span class="played-by" data-badge=${badge(m.played_by[i])}></span>
            </span>`,
          )}
        </span>
      <//>`;
    })}
  </section>`;
}
