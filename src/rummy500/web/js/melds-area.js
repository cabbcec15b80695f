// The melds on the table, each card marked with who played it; a meld a selected (or dragged)
// card can be laid off on is highlighted and takes a click or a drop.
import { html, cls, useLayoutEffect, useRef } from './lib.js';
import { t } from './i18n.js';
import { Card, cardName, cardShort, parsePlayed } from './cards.js';
import { seatColorClass } from './seat-colors.js';
import { pressable } from './pile.js';

/** How much of a meld card the next one covers (a fraction of its width), least first. */
const OVERLAPS = [0, 0.25, 0.5];
/** Rows of melds the table gives them before their cards start to overlap. */
const ROOMY_ROWS = 2;

function meldRows(section) {
  return new Set([...section.querySelectorAll('.meld')].map((m) => m.offsetTop)).size;
}

/**
 * The least overlap of the meld cards that keeps the melds in as few rows as the tightest
 * overlap would, or in ROOMY_ROWS: the cards lie side by side while there is room, and overlap
 * (a quarter, then a half) only when the melds would otherwise take more rows. Said as the
 * section's --meld-overlap and data-overlap.
 */
function fitOverlap(section) {
  const set = (overlap) => {
    section.style.setProperty('--meld-overlap', String(overlap));
    section.dataset.overlap = String(overlap);
  };
  const rows = (overlap) => {
    set(overlap);
    return meldRows(section);
  };
  const room = Math.max(ROOMY_ROWS, rows(OVERLAPS.at(-1)));
  const fits = OVERLAPS.find((overlap) => rows(overlap) <= room);
  set(fits ?? OVERLAPS.at(-1));
}

/** Fit the overlap of the melds' cards now and whenever the section's width changes. */
function useMeldOverlap(melds) {
  const ref = useRef(null);
  const layout = melds.map((m) => m.cards.length).join(',');
  useLayoutEffect(() => {
    const section = ref.current;
    if (!section) return undefined;
    fitOverlap(section);
    if (typeof ResizeObserver === 'undefined') return undefined;
    let width = section.clientWidth;
    const observer = new ResizeObserver(() => {
      if (section.clientWidth === width) return; // a height change is the fit's own doing
      width = section.clientWidth;
      fitOverlap(section);
    });
    observer.observe(section);
    return () => observer.disconnect();
  }, [layout]);
  return ref;
}

/** What a joker on the table stands for, as its mark under the card ('=7♥'), or null. */
function jokerMark(card) {
  const { as } = parsePlayed(card);
  if (!as) return null;
  return `=${cardShort(as)}`;
}

/**
 * `targets`: the numbers of the melds the selected card may be laid off on; `hinted`: the one a
 * hint names; `name(seat)` and `badge(seat)` say who played a card (in words, in short); `me`: the
 * page's player.
 */
export function MeldsArea({ melds, spectator, targets, hinted, dragging, name, badge, me = null, onLayOff }) {
  // a card the page's player played is said in the second person
  const cardBy = (card, seat) => (me && seat === me ? t('meld.card.you', { card }) : t('meld.card', { card, who: name(seat) }));
  const playedBy = (seat) => (me && seat === me ? t('meld.by.you') : t('meld.by', { who: name(seat) }));
  const ref = useMeldOverlap(melds);
  return html`<section
    ref=${ref}
    class=${cls('melds', dragging && 'drop-zone')}
    data-drop="melds"
    aria-label=${t('melds.label', { n: melds.length })}
  >
    ${melds.length === 0 &&
    // a spectator plays no card: it is not told to drag one here
    html`<p class="muted melds-empty">${spectator ? t('melds.none.watching') : t('melds.none')}</p>`}
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
            (c, i) => html`<span
              key=${`${i}-${c}`}
              class=${cls('meld-card', seatColorClass(m.played_by[i]))}
              title=${jokerMark(c) ? `${cardName(c)}, ${playedBy(m.played_by[i])}` : playedBy(m.played_by[i])}
            >
              <${Card} text=${c} />
              ${jokerMark(c) && html`<span class="joker-as" data-as=${jokerMark(c)}></span>`}
              <span class="played-by" data-badge=${badge(m.played_by[i])}></span>
            </span>`,
          )}
        </span>
      <//>`;
    })}
  </section>`;
}
