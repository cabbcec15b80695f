// Accounts (docs/accounts.md): sign up and sign in with a passkey, the account's passkeys,
// signing out (here or everywhere), deleting the account; and a player's profile (/players/NAME)
// with mute, block and report. Playing as a guest needs none of it.
import { html, useState, useEffect, useLayoutEffect, useRef } from './lib.js';
import { t } from './i18n.js';
import { request } from './api.js';
import * as store from './store.js';
import { navigate, Settings } from './app-shell.js';
import { LanguagePicker } from './language-picker.js';
import { levelName } from './rules.js';
import { RatingsSection } from './play-now.js';

const call = (method, path, body) => request(method, path, { body });

const toBytes = (text) => {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
};
const toText = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A passkey made with the server's options, as JSON for the server. */
async function createPasskey(options) {
  const publicKey = {
    ...options,
    challenge: toBytes(options.challenge),
    user: { ...options.user, id: toBytes(options.user.id) },
    excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
  };
  const made = await navigator.credentials.create({ publicKey });
  return {
    id: made.id,
    rawId: toText(made.rawId),
    type: made.type,
    response: {
      clientDataJSON: toText(made.response.clientDataJSON),
      attestationObject: toText(made.response.attestationObject),
      transports: made.response.getTransports ? made.response.getTransports() : [],
    },
    clientExtensionResults: {},
  };
}

/** A passkey's signature over the server's challenge (any passkey of this site). */
async function signWithPasskey(options) {
  const publicKey = {
    ...options,
    challenge: toBytes(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
  };
  const got = await navigator.credentials.get({ publicKey });
  return {
    id: got.id,
    rawId: toText(got.rawId),
    type: got.type,
    response: {
      clientDataJSON: toText(got.response.clientDataJSON),
      authenticatorData: toText(got.response.authenticatorData),
      signature: toText(got.response.signature),
      userHandle: got.response.userHandle ? toText(got.response.userHandle) : null,
    },
    clientExtensionResults: {},
  };
}

/** A player's profile page. */
export const profilePath = (name) => `/players/${encodeURIComponent(name)}`;

function failure(err) {
  if (err && err.name === 'NotAllowedError') return t('account.cancelled');
  return err && err.message ? err.message : String(err);
}

/** The start page's account panel: sign up or in as a guest; the account when signed in. */
export function AccountPanel() {
  const [me, setMe] = useState(undefined);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [username, setUsername] = useState(store.getName());
  const stats = store.stats();
  const [importStats, setImportStats] = useState(stats.games > 0);
  const load = () =>
    call('GET', '/api/account')
      .then((data) => setMe(data.account ? data : null))
      .catch(() => setMe(null));
  useEffect(() => {
    load();
  }, []);
  // the control an action was started from, to be given the focus back once it is done: or,
  // when it went (signed in or out, a passkey removed), the panel's title
  const [refocus, setRefocus] = useState(null);
  useFocusBack(refocus, 'account-title');
  const run = (work) => async (e) => {
    if (e) e.preventDefault();
    const from = { element: document.activeElement };
    setBusy(true);
    setError(null);
    try {
      await work();
      await load();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
      setRefocus(from);
    }
  };
  const signUp = run(async () => {
    const { options } = await call('POST', '/api/account/register/options', { username });
    const credential = await createPasskey(options);
    const seats = Object.entries(store.seats()).map(([id, s]) => ({ table_id: id, token: s.token }));
    const { games, wins, hands, points, best } = stats;
    await call('POST', '/api/account/register', {
      credential,
      seats: seats.slice(0, 200),
      local_stats: importStats ? { games, wins, hands, points, best } : null,
    });
  });
  const signIn = run(async () => {
    const { options } = await call('POST', '/api/account/signin/options');
    await call('POST', '/api/account/signin', { credential: await signWithPasskey(options) });
  });
  const addKey = run(async () => {
    const { options } = await call('POST', '/api/account/passkeys/options');
    await call('POST', '/api/account/passkeys', { credential: await createPasskey(options), label: null });
  });
  if (me === undefined) return null;
  const alert = error && html`<p class="error-box" role="alert" data-account-error>${error}</p>`;
  if (!me) {
    return html`<section class="panel account" aria-labelledby="account-title" data-account="guest">
      <h2 id="account-title" tabindex="-1">${t('account.title')}</h2>
      <p class="help">${t('account.guest.help')}</p>
      ${/^[\d.]+$|^\[/.test(location.hostname) &&
      html`<p class="help" data-account-hint>${t('account.needs.name', { url: `${location.protocol}//localhost${location.port ? `:${location.port}` : ''}` })}</p>`}
      ${alert}
      <form onSubmit=${signUp}>
        <label class="field" for="account-name">
          <span>${t('account.username')}</span>
          <input id="account-name" value=${username} maxlength="24" autocomplete="username webauthn"
            onInput=${(e) => setUsername(e.target.value)} required />
        </label>
        ${stats.games > 0 &&
        html`<label class="setting-check">
          <input type="checkbox" checked=${importStats} onChange=${(e) => setImportStats(e.target.checked)} />
          ${t('account.import', { n: stats.games })}
        </label>`}
        <div class="row">
          <button class="primary" type="submit" disabled=${busy} data-action="sign-up">${t('account.signup')}</button>
          <button type="button" disabled=${busy} onClick=${signIn} data-action="sign-in">${t('account.signin')}</button>
        </div>
      </form>
    </section>`;
  }
  const account = me.account;
  return html`<section class="panel account" aria-labelledby="account-title" data-account="signed-in">
    <h2 id="account-title" tabindex="-1">${t('account.title')}</h2>
    <p data-signed-in=${account.username}>
      ${t('account.signedin', { name: account.username })}
      ${' '}<a href=${profilePath(account.username)}
        onClick=${(e) => { e.preventDefault(); navigate(profilePath(account.username)); }}>${t('account.profile')}</a>
    </p>
    ${alert}
    <h3>${t('account.passkeys')}</h3>
    <ul class="table-list">
      ${account.passkeys.map(
        (k, n) => html`<li key=${k.id}>
          <span>${k.label || t('account.passkey', { n: n + 1 })}</span>
          <button class="ghost" disabled=${busy || account.passkeys.length < 2}
            aria-label=${t('account.passkey.remove.label', { n: n + 1 })}
            onClick=${run(() => call('DELETE', `/api/account/passkeys/${k.id}`))}>${t('account.passkey.remove')}</button>
        </li>`,
      )}
    </ul>
    <div class="row">
      <button disabled=${busy} onClick=${addKey} data-action="add-passkey">${t('account.passkey.add')}</button>
      <button disabled=${busy} onClick=${run(() => call('POST', '/api/account/signout'))} data-action="sign-out">${t('account.signout')}</button>
      <button class="ghost" disabled=${busy} onClick=${run(() => call('POST', '/api/account/signout-everywhere'))} data-action="sign-out-everywhere">${t('account.signout.all')}</button>
    </div>
    <${DeleteAccount} run=${run} busy=${busy} />
  </section>`;
}

/** After an action (`from`: `{ element }`, the control it was started from, a new object each
 * time), the focus goes back to that control — it was disabled meanwhile — or, when it is gone
 * with what the action changed, to the element `fallbackId`: never lost to the page's body.
 * A layout effect: it runs as the render that ends the action is committed, in the same turn
 * as the render that took the control away (an effect ran a frame later, and meanwhile the
 * focus was on the body for anything that looked). */
function useFocusBack(from, fallbackId) {
  useLayoutEffect(() => {
    if (!from) return;
    const now = document.activeElement;
    if (now && now !== document.body && now !== from.element && now.isConnected) return; // moved on
    const back = from.element && from.element.isConnected && !from.element.disabled ? from.element : document.getElementById(fallbackId);
    if (back) back.focus();
  }, [from]);
}

/** Escape closes an open `<details>` and gives the focus to its summary. */
function closeOnEscape(e) {
  const details = e.currentTarget;
  if (e.key !== 'Escape' || !details.open) return;
  e.preventDefault();
  e.stopPropagation();
  details.open = false;
  details.querySelector('summary').focus();
}

function DeleteAccount({ run, busy }) {
  // a browser left signed in is not enough: one of the account's passkeys confirms, now
  const remove = run(async () => {
    const { options } = await call('POST', '/api/account/delete/options');
    await call('DELETE', '/api/account', { credential: await signWithPasskey(options) });
  });
  return html`<details class="delete-account" onKeyDown=${closeOnEscape}>
    <summary>${t('account.delete')}</summary>
    <p class="help">${t('account.delete.help')}</p>
    <p class="help">${t('account.delete.confirm')}</p>
    <button class="danger" type="button" disabled=${busy} onClick=${remove} data-action="delete-account">${t('account.delete.button')}</button>
  </details>`;
}

function StatRows({ rows, label, title }) {
  // a region of its own, reachable with the keyboard: a phone scrolls it sideways
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label=${title || label}><table class="profile-stats">
    <thead>
      <tr>
        <th scope="col">${label}</th>
        <th scope="col">${t('stats.games')}</th>
        <th scope="col">${t('stats.wins')}</th>
        <th scope="col">${t('stats.hands')}</th>
        <th scope="col">${t('stats.average')}</th>
        <th scope="col">${t('stats.best')}</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        ([name, s]) => html`<tr key=${name}>
          <th scope="row">${name}</th>
          <td>${s.games}</td>
          <td>${s.wins}</td>
          <td>${s.hands}</td>
          <td>${s.average_hand === null ? '–' : s.average_hand}</td>
          <td>${s.best_hand === null ? '–' : s.best_hand}</td>
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}

/** A player's profile: their games and (when rated) ratings, nothing else. */
export function ProfileScreen({ name, settings, onSettings }) {
  const [profile, setProfile] = useState(null);
  const [me, setMe] = useState(null);
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  const [reason, setReason] = useState('');
  useEffect(() => {
    call('GET', `/api/players/${encodeURIComponent(name)}`).then(setProfile).catch((e) => setError(failure(e)));
    call('GET', '/api/account').then((data) => setMe(data.account ? data : null)).catch(() => setMe(null));
  }, [name]);
  const listed = (kind) => !!me && (me[kind === 'mutes' ? 'muted' : 'blocked'] || []).some((n) => n.toLowerCase() === name.toLowerCase());
  const toggle = (kind) => async () => {
    try {
      const on = listed(kind);
      await call(on ? 'DELETE' : 'PUT', `/api/account/${kind}/${encodeURIComponent(name)}`);
      const data = await call('GET', '/api/account');
      setMe(data.account ? data : null);
    } catch (e) {
      setError(failure(e));
    }
  };
  const noteRef = useRef(null);
  useEffect(() => {
    // the button that sent it is disabled now (no reason typed): the note takes the focus
    if (note && noteRef.current) noteRef.current.focus();
  }, [note]);
  const report = async (e) => {
    e.preventDefault();
    setNote(null);
    try {
      await call('POST', '/api/reports', { username: name, reason });
      setReason('');
      setNote(t('profile.report.sent'));
    } catch (err) {
      setError(failure(err));
    }
  };
  const pool = (p) => t('profile.pool', { pool: p });
  const level = (l) => (l === 'people' ? t('profile.people') : levelName(l));
  const self = me && profile && me.account.username === profile.username;
  return html`<div class="lobby profile">
    <header class="topbar">
      <a class="brand" href="/" onClick=${(e) => { e.preventDefault(); navigate('/'); }}>${t('app.name')}</a>
      <span class="spacer"></span>
      <${LanguagePicker} settings=${settings} onSettings=${onSettings} />
      <${Settings} settings=${settings} onSettings=${onSettings} compact=${true} />
    </header>
    <main id="main" class="lobby-main">
      <h1>${t('profile.title', { name: profile ? profile.username : name })}</h1>
      ${error && html`<p class="error-box" role="alert">${error}</p>`}
      ${note && html`<p class="notice" role="status" tabindex="-1" ref=${noteRef} data-report-sent>${note}</p>`}
      ${profile &&
      html`<section class="panel" aria-labelledby="profile-games">
          <h2 id="profile-games">${t('profile.games')}</h2>
          <${StatRows} label=${t('profile.all')} rows=${[[t('profile.all'), profile.games]]} />
          ${Object.keys(profile.by_pool).length > 0 &&
          html`<h3>${t('profile.by.pool')}</h3><${StatRows} label=${t('profile.pool.col')} title=${t('profile.by.pool')} rows=${Object.entries(profile.by_pool).map(([p, s]) => [pool(p), s])} />`}
          ${Object.keys(profile.by_level).length > 0 &&
          html`<h3>${t('profile.by.level')}</h3><${StatRows} label=${t('profile.level.col')} title=${t('profile.by.level')} rows=${Object.entries(profile.by_level).map(([l, s]) => [level(l), s])} />`}
        </section>
        <${RatingsSection} ratings=${profile.ratings} />
        <section class="panel" aria-labelledby="profile-last">
          <h2 id="profile-last">${t('profile.last')}</h2>
          ${profile.last_games.length === 0 && html`<p class="help">${t('profile.none')}</p>`}
          <ul class="table-list">
            ${profile.last_games.map(
              (g) => html`<li key=${g.table_id}>
                <span>${t(g.won ? 'profile.game.won' : 'profile.game.lost', { n: g.players, total: g.total })}</span>
                <span class="row">
                  <a href=${g.replay}>${t('profile.replay')}</a>
                  <a href=${g.record} download>${t('profile.record')}</a>
                </span>
              </li>`,
            )}
          </ul>
        </section>
        ${me &&
        !self &&
        html`<section class="panel" aria-labelledby="profile-safety">
          <h2 id="profile-safety">${t('profile.safety')}</h2>
          <div class="row">
            <button onClick=${toggle('mutes')} aria-pressed=${listed('mutes')} data-action="mute">${t(listed('mutes') ? 'profile.unmute' : 'profile.mute')}</button>
            <button onClick=${toggle('blocks')} aria-pressed=${listed('blocks')} data-action="block">${t(listed('blocks') ? 'profile.unblock' : 'profile.block')}</button>
          </div>
          <form onSubmit=${report}>
            <label class="field" for="report-reason">
              <span>${t('profile.report.reason')}</span>
              <textarea id="report-reason" maxlength="500" value=${reason} onInput=${(e) => setReason(e.target.value)} required></textarea>
            </label>
            <button type="submit" disabled=${!reason.trim()} data-action="report">${t('profile.report')}</button>
          </form>
          <p class="help">${t('profile.safety.help')}</p>
        </section>`}`}
    </main>
  </div>`;
}

const HIDDEN_KEY = 'rummy500.hidden';
const HIDDEN_MOST = 200;

/** Who wrote a chat line, as a mute names them: a signed-in player by account (wherever and
 * whenever they wrote), a guest by the table, seat and name they wrote with (a guest has no
 * other identity). */
export function chatAuthor(tableId, line) {
  return line.account ? `account:${line.account.toLowerCase()}` : `guest:${tableId}:${line.seat}:${line.name}`;
}

function sessionHidden() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(HIDDEN_KEY) || '[]'));
  } catch {
    return new Set();
  }
}

/** Whose chat this browser hides at a table (docs/accounts.md "Mute, block, report").
 * Signed in, muting a signed-in player is the account's mute, kept by the server
 * (`PUT /api/account/mutes/NAME`): their lines are hidden at every table, also those written
 * before and after they left a seat. A guest's mutes, and anyone's of a guest, last this tab's
 * session (`sessionStorage`). Returns `{ username, muted(line), toggle(line), error }`. */
export function useMutes(tableId) {
  const [username, setUsername] = useState(null); // the signed-in account's, or null
  const [accounts, setAccounts] = useState(() => new Set()); // the account's mutes, lower case
  const [hidden, setHidden] = useState(sessionHidden);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    call('GET', '/api/account')
      .then((me) => {
        if (!live || !me.account) return;
        setUsername(me.account.username);
        setAccounts(new Set((me.muted || []).map((n) => n.toLowerCase())));
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [tableId]);
  const muted = (line) =>
    (!!username && !!line.account && accounts.has(line.account.toLowerCase())) || hidden.has(chatAuthor(tableId, line));
  const toggle = async (line) => {
    setError(null);
    if (username && line.account) {
      const name = line.account.toLowerCase();
      const on = accounts.has(name);
      try {
        await call(on ? 'DELETE' : 'PUT', `/api/account/mutes/${encodeURIComponent(line.account)}`);
        const next = new Set(accounts);
        if (on) next.delete(name);
        else next.add(name);
        setAccounts(next);
      } catch (e) {
        setError(failure(e));
      }
      return;
    }
    const key = chatAuthor(tableId, line);
    const next = new Set(hidden);
    if (!next.delete(key)) next.add(key);
    const kept = [...next].slice(-HIDDEN_MOST);
    try {
      sessionStorage.setItem(HIDDEN_KEY, JSON.stringify(kept));
    } catch {
      // private mode: hidden until the page is left
    }
    setHidden(new Set(kept));
  };
  return { username, muted, toggle, error };
}
