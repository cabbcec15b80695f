// Quick pairing and ratings (docs/accounts.md): the start page's "Play now" (a pool, rated or
// casual, computer players after a wait), the leaderboard (?leaderboard=POOL) and a profile's
// ratings with their chart.
import { html, useState, useEffect, useRef } from './lib.js';
import { t } from './i18n.js';
import { request as call } from './api.js';
import * as store from './store.js';
import { navigate, Settings } from './app-shell.js';
import { LanguagePicker } from './language-picker.js';
import { levelName } from './rules.js';

export const POOLS = ['2', '3-4', '5-8'];
/** How often a waiting player asks how it goes (the server forgets one silent for 20 s). */
const POLL_MS = 1000;

/** A rating as shown: `1578`, or `1578?` while provisional. */
export function shownRating(r) {
  return r.provisional ? t('rating.provisional', { rating: r.rating }) : String(r.rating);
}

/** The start page's "Play now": choose a pool, rated or casual, and wait to be paired. */
export function PlayNow() {
  const [pool, setPool] = useState('2');
  const [rated, setRated] = useState(false);
  const [bots, setBots] = useState('30');
  const [name, setName] = useState(store.getName() || '');
  const [account, setAccount] = useState(null);
  const [waiting, setWaiting] = useState(null); // {token, status}
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null); // why the wait began again (a paired table cancelled)
  const timer = useRef(null);
  const known = useRef(undefined); // the account last seen: signing in elsewhere on the page
  const refresh = () =>
    call('GET', '/api/account')
      .then((data) => {
        const found = data && data.account ? data.account : null;
        setAccount(found);
        if (found && (!known.current || known.current.username !== found.username)) setRated(true);
        if (!found) setRated(false);
        known.current = found;
      })
      .catch(() => setAccount(null));
  useEffect(() => {
    refresh();
    const resumed = store.takePairing(); // back from a paired table someone did not come to
    if (resumed && resumed.token) {
      setNote(resumed.note || null);
      setWaiting({ token: resumed.token, status: null });
      timer.current = setTimeout(() => ask(resumed.token), 0);
    }
    return () => clearTimeout(timer.current);
  }, []);
  const ask = async (token) => {
    try {
      const answer = await call('GET', '/api/pairing', { token });
      if (answer.status === 'paired') {
        const who = account ? account.username : name.trim();
        store.saveSeat(answer.table_id, { token, seat: answer.seat, code: '', name: who });
        setWaiting(null);
        navigate(`/?table=${encodeURIComponent(answer.table_id)}`);
        return;
      }
      setWaiting({ token, status: answer });
      timer.current = setTimeout(() => ask(token), POLL_MS);
    } catch (e) {
      setWaiting(null);
      setError(e.message);
    }
  };
  const start = async (e) => {
    e.preventDefault();
    setError(null);
    setNote(null);
    const body = { pool, rated };
    if (!account) body.name = name.trim();
    if (!rated && bots !== 'never') body.bots_after = Number(bots);
    try {
      if (!account) store.setName(name.trim());
      const reply = await call('POST', '/api/pairing', { body });
      setWaiting({ token: reply.token, status: null });
      timer.current = setTimeout(() => ask(reply.token), 300);
    } catch (err) {
      setError(err.message);
    }
  };
  const stop = async () => {
    clearTimeout(timer.current);
    setNote(null);
    const token = waiting && waiting.token;
    setWaiting(null);
    if (token) await call('DELETE', '/api/pairing', { token }).catch(() => null);
  };
  // the button pressed went with the form (or the waiting): its successor takes the focus
  const section = useRef(null);
  const isWaiting = !!waiting;
  const started = useRef(false);
  useEffect(() => {
    if (!started.current) {
      started.current = true;
      return;
    }
    const now = document.activeElement;
    if (now && now !== document.body && now.isConnected) return;
    const next = section.current && section.current.querySelector(isWaiting ? '[data-action=stop-waiting]' : '[data-action=play-now]');
    if (next) next.focus();
  }, [isWaiting]);
  const s = waiting && waiting.status;
  // signed in or out in the account panel meanwhile: asked again when the panel is used
  return html`<section class="panel play-now" ref=${section} aria-labelledby="play-now-title" onfocusin=${refresh} onPointerEnter=${refresh}>
    <h2 id="play-now-title">${t('play.title')}</h2>
    ${error && html`<p class="error-box" role="alert">${error}</p>`}
    ${note && html`<p class="notice" role="status" data-pairing="cancelled">${note}</p>`}
    ${waiting
      ? html`<div role="status" aria-live="polite" data-pairing="waiting">
            <p>${t('play.waiting')}</p>
            ${s &&
            html`<p class="help">${t('play.waiting.detail', { seconds: Math.round(s.waited), window: s.window, n: s.waiting })}</p>`}
          </div>
          <button type="button" onClick=${stop} data-action="stop-waiting">${t('play.stop')}</button>`
      : html`<form onSubmit=${start}>
          <fieldset>
            <legend>${t('play.pool')}</legend>
            <div class="row">
              ${POOLS.map(
                (p) => html`<label key=${p}>
                  <input type="radio" name="pool" value=${p} checked=${pool === p} onChange=${() => setPool(p)} />
                  ${t('profile.pool', { pool: p })}
                </label>`,
              )}
            </div>
          </fieldset>
          <fieldset>
            <legend>${t('play.kind')}</legend>
            <div class="row">
              <label>
                <input type="radio" name="rated" checked=${rated} disabled=${!account} onChange=${() => setRated(true)} data-rated="yes" />
                ${t('play.rated')}
              </label>
              <label>
                <input type="radio" name="rated" checked=${!rated} onChange=${() => setRated(false)} data-rated="no" />
                ${t('play.casual')}
              </label>
            </div>
            <p class="help">${account ? t('play.rated.help') : t('play.rated.signin')}</p>
          </fieldset>
          ${!account &&
          html`<label class="field" for="play-name">
            <span>${t('play.name')}</span>
            <input id="play-name" value=${name} maxlength="32" required onInput=${(e) => setName(e.target.value)} autocomplete="nickname" />
          </label>`}
          ${!rated &&
          html`<label class="field" for="play-bots">
            <span>${t('play.bots')}</span>
            <select id="play-bots" value=${bots} onChange=${(e) => setBots(e.target.value)}>
              <option value="never">${t('play.bots.never')}</option>
              ${['10', '30', '60', '120'].map((n) => html`<option key=${n} value=${n}>${t('play.bots.after', { n })}</option>`)}
            </select>
          </label>`}
          <div class="row">
            <button type="submit" class="primary" data-action="play-now">${t('play.button')}</button>
            <a href="/?leaderboard=${pool}" onClick=${(e) => { e.preventDefault(); navigate(`/?leaderboard=${pool}`); }}>${t('board.link')}</a>
          </div>
        </form>`}
  </section>`;
}

/** The leaderboard of a pool, a page at a time, with the computer levels on the same scale. */
export function LeaderboardScreen({ pool, settings, onSettings }) {
  const [board, setBoard] = useState(null);
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState(null);
  const shown = POOLS.includes(pool) ? pool : '2';
  useEffect(() => {
    call('GET', `/api/leaderboard?pool=${encodeURIComponent(shown)}&offset=${offset}&limit=50`)
      .then(setBoard)
      .catch((e) => setError(e.message));
  }, [shown, offset]);
  const go = (p) => {
    setOffset(0);
    navigate(`/?leaderboard=${p}`);
  };
  return html`<div class="lobby leaderboard">
    <header class="topbar">
      <a class="brand" href="/" onClick=${(e) => { e.preventDefault(); navigate('/'); }}>${t('app.name')}</a>
      <span class="spacer"></span>
      <${LanguagePicker} settings=${settings} onSettings=${onSettings} />
      <${Settings} settings=${settings} onSettings=${onSettings} compact=${true} />
    </header>
    <main id="main" class="lobby-main">
      <h1>${t('board.title')}</h1>
      <div class="row" role="group" aria-label=${t('play.pool')}>
        ${POOLS.map(
          (p) => html`<button key=${p} type="button" aria-pressed=${p === shown} onClick=${() => go(p)} data-pool=${p}>${t('profile.pool', { pool: p })}</button>`,
        )}
      </div>
      ${error && html`<p class="error-box" role="alert">${error}</p>`}
      ${board &&
      html`<section class="panel" aria-labelledby="board-places">
          <h2 id="board-places">${t('board.pool', { pool: t('profile.pool', { pool: shown }) })}</h2>
          ${board.places.length === 0 && html`<p class="help">${t('board.empty')}</p>`}
          ${board.places.length > 0 &&
          html`<div class="scroll" tabindex="0" role="region" aria-labelledby="board-places">
            <table class="stats-table" data-leaderboard=${shown}>
              <thead>
                <tr><th scope="col">${t('board.place')}</th><th scope="col">${t('board.player')}</th><th scope="col">${t('board.rating')}</th><th scope="col">${t('board.games')}</th></tr>
              </thead>
              <tbody>
                ${board.places.map(
                  (p) => html`<tr key=${p.username} data-player=${p.username}>
                    <td>${p.place}</td>
                    <th scope="row"><a href="/?player=${encodeURIComponent(p.username)}" onClick=${(e) => { e.preventDefault(); navigate(`/?player=${encodeURIComponent(p.username)}`); }}>${p.username}</a></th>
                    <td>${shownRating(p)}</td>
                    <td>${p.games}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`}
          <div class="row">
            <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - 50))}>${t('board.previous')}</button>
            <button type="button" disabled=${board.next_offset == null} onClick=${() => setOffset(board.next_offset)}>${t('board.next')}</button>
          </div>
          <p class="help">${t('board.help', { n: board.provisional_games })}</p>
        </section>
        <${LevelRatings} levels=${board.levels} />`}
    </main>
  </div>`;
}

function LevelRatings({ levels }) {
  const order = Object.entries(levels || {}).filter(([l]) => l !== 'random').sort((a, b) => a[1] - b[1]);
  return html`<section class="panel" aria-labelledby="level-ratings">
    <h2 id="level-ratings">${t('board.levels')}</h2>
    <ul>
      ${order.map(([l, r]) => html`<li key=${l}>${t('board.level', { level: levelName(l), rating: r })}</li>`)}
    </ul>
  </section>`;
}

/** A chart of a pool's rating over its last games (an image with its words, and the list). */
function RatingChart({ history, label }) {
  if (history.length < 2) return null;
  const values = history.map((h) => h.rating);
  const low = Math.min(...values) - 10;
  const high = Math.max(...values) + 10;
  const x = (i) => 4 + (i * 292) / (history.length - 1);
  const y = (v) => 76 - ((v - low) * 72) / (high - low);
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return html`<svg class="rating-chart" viewBox="0 0 300 80" role="img" aria-label=${label}>
    <polyline points=${points} fill="none" stroke="currentColor" stroke-width="2" />
  </svg>`;
}

/** The profile's ratings: each pool's rating, its chart and its last changes. */
export function RatingsSection({ ratings }) {
  const pools = Object.entries((ratings && ratings.pools) || {});
  if (pools.length === 0) return null;
  return html`<section class="panel" data-section="ratings" aria-labelledby="profile-ratings">
    <h2 id="profile-ratings">${t('profile.ratings')}</h2>
    ${pools.map(([pool, r]) => {
      const last = r.history[r.history.length - 1];
      return html`<div key=${pool} data-rating-pool=${pool}>
        <h3>${t('profile.pool', { pool })}</h3>
        <p>
          <strong data-rating=${r.rating}>${shownRating(r)}</strong>
          ${' '}${t('rating.games', { n: r.games })}
          ${last && html` · ${t('rating.last', { change: last.change > 0 ? `+${last.change}` : String(last.change) })}`}
        </p>
        <${RatingChart}
          history=${r.history}
          label=${t('rating.chart', { pool, from: r.history[0] ? r.history[0].rating : r.rating, to: r.rating, n: r.history.length })}
        />
      </div>`;
    })}
    <p class="help">${Object.entries(ratings.levels || {})
      .filter(([l]) => l !== 'random')
      .sort((a, b) => a[1] - b[1])
      .map(([l, v]) => t('board.level', { level: levelName(l), rating: v }))
      .join(' · ')}</p>
  </section>`;
}

/** At the end of a rated game (shown only where `state.table.rated`): each seat's new rating
 * and its change (the server rates the game just after it ends: asked again a few times until
 * it has). */
export function RatingChanges({ tableId, name }) {
  const [ratings, setRatings] = useState(null);
  useEffect(() => {
    let tries = 0;
    let timer = null;
    const ask = () =>
      call('GET', `/api/tables/${encodeURIComponent(tableId)}`)
        .then((info) => {
          if (!info.rated) return; // a casual game: nothing to show
          const found = info.ratings || {};
          const done = Object.values(found).length > 0 && Object.values(found).every((r) => 'change' in r);
          if (done) setRatings(found);
          else if (++tries < 20) timer = setTimeout(ask, 500);
        })
        .catch(() => null);
    ask();
    return () => clearTimeout(timer);
  }, [tableId]);
  if (!ratings) return null;
  return html`<ul class="rating-changes" data-rating-changes>
    ${Object.entries(ratings).map(
      ([seat, r]) => html`<li key=${seat} data-seat=${seat}>
        ${t('rating.change', { who: name(seat), rating: r.rating, change: r.change > 0 ? `+${r.change}` : String(r.change) })}
      </li>`,
    )}
  </ul>`;
}

/** A rated table's seats' ratings as the game starts, asked once (`tableId` null at a casual
 * table: nothing is asked, `{}`). */
export function useTableRatings(tableId) {
  const [ratings, setRatings] = useState({});
  useEffect(() => {
    if (!tableId) return undefined;
    let live = true;
    call('GET', `/api/tables/${encodeURIComponent(tableId)}`)
      .then((info) => live && info.rated && setRatings(info.ratings || {}))
      .catch(() => null);
    return () => {
      live = false;
    };
  }, [tableId]);
  return ratings;
}
