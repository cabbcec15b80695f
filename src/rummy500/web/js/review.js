// The review of a finished game (?review=TABLE[&seat=P2]): while the server computes it, a
// progress bar ("Reviewing move 12 of 54…"); then, per hand, the accuracy and every decision of
// the seat — the move played, its verdict as a coloured badge with its word and in words ("within
// 3 points of the best", said by the server), the better move and why — beside a replay of the hand that steps move by
// move (buttons, ← →, Home, End; a decision in the list jumps to it). The replay shows what the
// seat saw: its own hand and the public cards (the server builds it from the seat's observation);
// the others' hands only once the hand is over, as at a card table.
import { html, cls, useState, useEffect, useRef, useCallback } from './lib.js';
import { t } from './i18n.js';
import { api } from './api.js';
import * as store from './store.js';
import { Card, cardName, cardList } from './cards.js';
import { describeMove } from './moves.js';
import { MeldsArea } from './melds-area.js';
import { navigate } from './app-shell.js';
import { LanguagePicker } from './language-picker.js';
import { seatColorClass } from './seat-colors.js';
import { splitLines, readLine, reviewingNumber, stepBy, edge, positionOf, decisionAt, nextCostly, handEnd, points, reviewSeatName } from './review-model.js';

const TAGS = ['good', 'inaccuracy', 'mistake', 'blunder'];

/** Whether the list and the replay are stacked (a phone): the replay first, not sticky. */
function stacked() {
  return !!(window.matchMedia && window.matchMedia('(max-width: 900px)').matches);
}

/** Read the review's NDJSON stream: the page's state, updated as each line arrives. */
function useReviewStream(tableId, seat, token, attempt) {
  const [state, setState] = useState({ status: 'connecting', done: 0, total: 0, data: null, error: '' });
  useEffect(() => {
    const abort = new AbortController();
    setState({ status: 'connecting', done: 0, total: 0, data: null, error: '' });
    (async () => {
      const headers = { Accept: 'application/x-ndjson' };
      const lang = document.documentElement.lang;
      if (lang) headers['Accept-Language'] = lang;
      if (token) headers.Authorization = `Bearer ${token}`;
      const query = seat ? `?seat=${encodeURIComponent(seat)}` : '';
      let response;
      try {
        response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/review${query}`, { headers, signal: abort.signal });
      } catch (e) {
        if (!abort.signal.aborted) setState((s) => ({ ...s, status: 'failed', error: e.message || String(e) }));
        return;
      }
      if (!response.ok) {
        let detail = response.statusText;
        try {
          detail = (await response.json()).detail || detail;
        } catch {
          // not JSON: the status says enough
        }
        setState((s) => ({ ...s, status: 'failed', error: String(detail), retry: response.status === 429 }));
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let rest = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const split = splitLines(rest, decoder.decode(value, { stream: true }));
          rest = split.rest;
          if (split.lines.length) setState((s) => split.lines.reduce(readLine, s));
        }
      } catch (e) {
        if (!abort.signal.aborted) setState((s) => ({ ...s, status: 'failed', error: e.message || String(e) }));
      }
    })();
    return () => abort.abort();
  }, [tableId, seat, token, attempt]);
  return state;
}

export function ReviewScreen({ tableId, seat, settings, onSettings }) {
  const held = store.seatAt(tableId);
  const token = held ? held.token : null;
  // a player's own seat unless another is asked for; a visitor's first seat
  const asked = seat || (token ? null : 'P1');
  const [attempt, setAttempt] = useState(0);
  const state = useReviewStream(tableId, asked, token, attempt);
  const [table, setTable] = useState(null);
  useEffect(() => {
    api.table(tableId).then(setTable, () => setTable(null));
  }, [tableId]);
  const seats = table ? table.seats.map((s) => s.seat) : [];
  const reviewed = state.data ? state.data.review.seat : asked || (held && held.seat);
  // seats named as the table names them (a computer player without a name is "Computer P2",
  // not "P2"); the review's own names until the table's seats are known
  const names = (state.data && state.data.names) || {};
  const name = (s) => reviewSeatName(table, names, s);

  return html`<div class="app review-app">
    <header class="topbar">
      <a class="brand" href="/" onClick=${(e) => {
        e.preventDefault();
        navigate('/');
      }}>${t('app.name')}</a>
      <span class="spacer"></span>
      <button class="ghost" data-action="back-to-table" onClick=${() => navigate(`/?table=${encodeURIComponent(tableId)}`)}>
        ${t('review.back')}
      </button>
      <${LanguagePicker} settings=${settings} onSettings=${onSettings} />
    </header>
    <main class="screen review-screen" id="main" data-review=${state.status}>
      <div class="review-heading">
        <h1>${reviewed ? t('review.title', { who: name(reviewed) }) : t('review.title.plain')}</h1>
        ${seats.length > 1 &&
        html`<label class="review-seat">
          ${t('review.seat')}
          <select
            value=${reviewed || ''}
            data-setting="review-seat"
            onChange=${(e) => navigate(`/?review=${encodeURIComponent(tableId)}&seat=${encodeURIComponent(e.target.value)}`)}
          >
            ${seats.map((s) => html`<option key=${s} value=${s}>${name(s)}</option>`)}
          </select>
        </label>`}
      </div>
      ${state.status === 'done'
        ? html`<${ReviewResult} data=${state.data} name=${name} />`
        : state.status === 'failed'
          ? html`<div class="panel review-failed">
              <p role="alert">${state.error}</p>
              ${state.retry && html`<button class="primary" onClick=${() => setAttempt((n) => n + 1)}>${t('review.retry')}</button>`}
            </div>`
          : html`<${ReviewProgress} state=${state} />`}
    </main>
  </div>`;
}

function ReviewProgress({ state }) {
  const { k, n } = reviewingNumber(state.done, state.total);
  const text =
    state.status === 'queued'
      ? t('review.queued')
      : state.status === 'running' && state.total > 0
        ? t('review.progress', { k, n })
        : t('review.starting');
  return html`<div class="panel review-waiting">
    <progress
      class="review-progress"
      max=${Math.max(state.total, 1)}
      value=${state.total ? state.done : undefined}
      aria-label=${t('review.progress.label')}
      data-progress=${`${state.done}/${state.total}`}
    ></progress>
    <p role="status" aria-live="polite" data-progress-text>${text}</p>
    ${state.status === 'running' &&
    state.counts &&
    html`<ul class="review-counts" aria-label=${t('review.counts.so.far')} data-progress-counts>
      ${TAGS.map((tag) => html`<li key=${tag}><${TagBadge} tag=${tag} /> ${state.counts[tag] || 0}</li>`)}
    </ul>`}
    <p class="muted">${t('review.explain')}</p>
  </div>`;
}

function TagBadge({ tag }) {
  return html`<span class="review-tag" data-tag=${tag}>${t(`review.tag.${tag}`)}</span>`;
}

function ReviewResult({ data, name }) {
  const review = data.review;
  const replay = data.replay;
  const [pos, setPos] = useState(() => {
    const first = review.hands.flatMap((h) => h.decisions).find((d) => d.tag !== 'good');
    return first ? positionOf(replay, first) : { hand: 0, step: 0 };
  });
  const [onlyCostly, setOnlyCostly] = useState(false);
  const step = useCallback((delta) => setPos((p) => stepBy(replay, p, delta)), [replay]);
  const jumpToCostly = useCallback(
    () =>
      setPos((p) => {
        const d = nextCostly(review, replay, p);
        return d ? positionOf(replay, d) : p;
      }),
    [review, replay],
  );
  useEffect(() => {
    const onKey = (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.target && /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
      if (e.key === 'ArrowRight') step(1);
      else if (e.key === 'ArrowLeft') step(-1);
      else if (e.key === 'Home') setPos(edge(replay, false));
      else if (e.key === 'End') setPos(edge(replay, true));
      else if (e.key === 'n' || e.key === 'N') jumpToCostly();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [replay, step, jumpToCostly]);
  return html`<div class="review-body">
    <section class="review-list" aria-labelledby="review-list-title">
      <h2 id="review-list-title" class="visually-hidden">${t('review.list')}</h2>
      <p class="review-summary" data-review-summary>
        ${t('review.summary', { accuracy: points(review.accuracy), n: review.decisions, lost: points(review.points_lost) })}
      </p>
      ${review.unreviewed > 0 &&
      html`<p class="review-limited" data-review-limited>${t('review.limited', { n: review.decisions, rest: review.unreviewed })}</p>`}
      <ul class="review-counts">
        ${TAGS.map((tag) => html`<li key=${tag}><${TagBadge} tag=${tag} /> ${review.counts[tag] || 0}</li>`)}
      </ul>
      <label class="review-filter">
        <input type="checkbox" checked=${onlyCostly} onChange=${(e) => setOnlyCostly(e.target.checked)} data-setting="review-costly" />
        ${t('review.only.costly')}
      </label>
      ${review.hands.map(
        (hand) => html`<${HandDecisions}
          key=${hand.hand}
          hand=${hand}
          replay=${replay}
          pos=${pos}
          onlyCostly=${onlyCostly}
          onPick=${(d) => {
            setPos(positionOf(replay, d));
            // stacked, the replay is above the list: bring it into sight
            const shown = stacked() && document.querySelector('.review-replay');
            if (shown && shown.scrollIntoView) shown.scrollIntoView({ block: 'start' });
          }}
        />`,
      )}
    </section>
    <${Replay} replay=${replay} review=${review} pos=${pos} name=${name} onStep=${step} onNextCostly=${jumpToCostly} />
  </div>`;
}

function HandDecisions({ hand, replay, pos, onlyCostly, onPick }) {
  const shown = onlyCostly ? hand.decisions.filter((d) => d.tag !== 'good') : hand.decisions;
  const current = replay[pos.hand] && replay[pos.hand].hand === hand.hand ? pos.step : null;
  return html`<section class="review-hand" data-hand=${hand.hand}>
    <h3>
      ${hand.score === null
        ? t('review.hand.open', { n: hand.hand, accuracy: points(hand.accuracy), lost: points(hand.points_lost) })
        : t('review.hand', { n: hand.hand, accuracy: points(hand.accuracy), lost: points(hand.points_lost), score: hand.score })}
    </h3>
    ${hand.unreviewed > 0 && html`<p class="muted" data-hand-unreviewed>${t('review.hand.unreviewed', { n: hand.unreviewed })}</p>`}
    ${shown.length === 0
      ? (hand.decisions.length || !hand.unreviewed) && html`<p class="muted">${t(hand.decisions.length ? 'review.hand.clean' : 'review.hand.none')}</p>`
      : html`<ol class="review-decisions">
          ${shown.map((d) => html`<li key=${d.index}>
            <${DecisionItem} decision=${d} current=${current === d.index} onPick=${onPick} />
          </li>`)}
        </ol>`}
  </section>`;
}

function DecisionItem({ decision, current, onPick }) {
  const ref = useRef(null);
  useEffect(() => {
    // beside the replay, the list follows it (stacked, the player is looking at the replay)
    if (current && !stacked() && ref.current && ref.current.scrollIntoView) ref.current.scrollIntoView({ block: 'nearest' });
  }, [current]);
  const d = decision;
  return html`<button
    ref=${ref}
    class=${cls('review-item', current && 'current')}
    aria-current=${current ? 'step' : undefined}
    data-decision=${`${d.hand}:${d.index}`}
    data-tag=${d.tag}
    onClick=${() => onPick(d)}
  >
    <span class="review-item-head">
      <span class="review-move-number">${t('review.move', { n: d.index + 1 })}</span>
      <span class="review-played" data-played>${d.played.words}</span>
      <${TagBadge} tag=${d.tag} />
      <span class="review-verdict" data-verdict>${d.verdict}</span>
    </span>
    ${d.tag !== 'good' &&
    html`<span class="review-better" data-better>${t('review.better', { move: d.best.words })}</span>
      ${d.why && html`<span class="review-why">${d.why}</span>`}`}
  </button>`;
}

/** The hand as the seat saw it at `pos`, with the buttons that step through it. */
function Replay({ replay, review, pos, name, onStep, onNextCostly }) {
  const hand = replay[pos.hand];
  const position = hand.positions[pos.step];
  const moves = hand.moves;
  const atEnd = pos.step >= moves.length;
  const next = atEnd ? null : hand.played[pos.step]; // the move as data (docs/protocol.md)
  const end = handEnd(hand);
  const decision = decisionAt(review, replay, pos);
  const seat = review.seat;
  const first = pos.hand === 0 && pos.step === 0;
  const last = pos.hand === replay.length - 1 && atEnd;
  const others = Object.keys(position.hand_sizes).filter((s) => s !== seat);
  return html`<section class="review-replay" aria-labelledby="review-replay-title" data-replay=${`${hand.hand}:${pos.step}`}>
    <h2 id="review-replay-title">
      ${atEnd ? t('review.replay.end', { n: hand.hand }) : t('review.replay.at', { n: hand.hand, k: pos.step + 1, total: moves.length })}
    </h2>
    <div class="review-steps">
      <button onClick=${() => onStep(-1)} disabled=${first} data-action="replay-back" aria-keyshortcuts="ArrowLeft">
        ${t('review.previous')}
      </button>
      <button onClick=${() => onStep(1)} disabled=${last} data-action="replay-next" aria-keyshortcuts="ArrowRight">
        ${t('review.next')}
      </button>
      ${review.decisions > review.counts.good &&
      html`<button onClick=${onNextCostly} data-action="replay-next-costly" aria-keyshortcuts="N">${t('review.next.costly')}</button>`}
      <span class="muted review-keys">${t('review.keys')}</span>
    </div>
    <p class="review-next-move" aria-live="polite" data-next-move>
      ${next ? t('review.next.move', { move: describeMove(next, name, position.discard_pile) }) : t(end.key, end.seat ? { who: name(end.seat) } : {})}
      ${decision && html` <${TagBadge} tag=${decision.tag} />`}
    </p>
    ${decision &&
    decision.tag !== 'good' &&
    html`<p class="review-replay-better">${t('review.better', { move: decision.best.words })}</p>`}
    <div class="review-table">
      <div class="review-pile">
        <h3>${t('review.pile', { n: position.discard_pile.length })}</h3>
        <${CardRow} cards=${position.discard_pile} label=${position.discard_pile.length ? t('review.pile.cards', { cards: cardList(position.discard_pile) }) : t('review.pile.empty')} />
        <p class="muted">${t('review.stock', { n: position.stock_size })}</p>
      </div>
      <div class="review-others">
        ${others.map(
          (s) => html`<p key=${s} class=${cls('review-other', seatColorClass(s))}>
            <span class="seat-swatch" aria-hidden="true"></span>${t('review.other.cards', { who: name(s), n: position.hand_sizes[s] })}
            ${position.left_cards && position.left_cards[s] && position.left_cards[s].length > 0 &&
            html`<${CardRow} cards=${position.left_cards[s]} label=${t('review.left', { who: name(s), cards: cardList(position.left_cards[s]) })} />`}
          </p>`,
        )}
      </div>
    </div>
    ${position.melds.length === 0
      ? html`<p class="muted review-no-melds">${t('review.melds.none')}</p>`
      : html`<${MeldsArea}
      melds=${position.melds}
      spectator=${true}
      targets=${new Set()}
      hinted=${null}
      dragging=${false}
      name=${name}
      badge=${(s) => s.replace('P', '')}
      onLayOff=${() => {}}
    />`}
    <div class="review-own">
      <h3>${t('review.own', { who: name(seat), n: position.hand.length })}</h3>
      <${CardRow} cards=${position.hand} label=${position.hand.length ? t('review.own.cards', { cards: cardList(position.hand) }) : t('review.own.empty')} own=${true} />
    </div>
  </section>`;
}

function CardRow({ cards, label, own }) {
  return html`<div class=${cls('review-cards', own && 'own')} role="img" aria-label=${label}>
    ${cards.map((c, i) => html`<span key=${`${i}-${c}`} class="review-card" title=${cardName(c)}><${Card} text=${c} /></span>`)}
  </div>`;
}
