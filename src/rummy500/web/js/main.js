// The browser game: the start page or a table, chosen by the address (?table=ID, ?watch=ID,
// ?invite=CODE, /players/NAME), with the settings every screen shares.
import { html, render, useState, useEffect } from './lib.js';
import { setLanguage, preferredLanguage, currentLanguage, t } from './i18n.js';
import { loadRules } from './rules.js';
import * as store from './store.js';
import { Lobby } from './lobby.js';
import { TableScreen } from './table.js';
import { ReviewScreen } from './review.js';
import { ProfileScreen } from './account.js';
import { LeaderboardScreen } from './play-now.js';
import { reducedMotion } from './app-shell.js';

function route() {
  // a profile has its own address (/players/NAME); the other screens are chosen by the query
  const profile = /^\/players\/([^/]+)\/?$/.exec(location.pathname);
  if (profile) return { screen: 'player', id: decodeURIComponent(profile[1]) };
  const params = new URLSearchParams(location.search);
  if (params.get('table')) return { screen: 'table', id: params.get('table') };
  if (params.get('watch')) return { screen: 'watch', id: params.get('watch') };
  if (params.get('player')) return { screen: 'player', id: params.get('player') };
  if (params.get('leaderboard')) return { screen: 'leaderboard', id: params.get('leaderboard') };
  if (params.get('review')) return { screen: 'review', id: params.get('review'), seat: params.get('seat') };
  return { screen: 'lobby', invite: params.get('invite') };
}

function App({ initialSettings }) {
  const [where, setWhere] = useState(route());
  const [settings, setSettings] = useState(initialSettings);
  useEffect(() => {
    const onChange = () => setWhere(route());
    window.addEventListener('popstate', onChange);
    window.addEventListener('r500:navigate', onChange);
    return () => {
      window.removeEventListener('popstate', onChange);
      window.removeEventListener('r500:navigate', onChange);
    };
  }, []);
  useEffect(() => {
    document.documentElement.dataset.speed = reducedMotion() ? 'none' : settings.speed;
  }, [settings.speed]);
  const onSettings = async (next) => {
    store.saveSettings(next);
    if (next.language !== settings.language) {
      await setLanguage(preferredLanguage(next.language));
      await loadRules(currentLanguage()); // the server's words for the rules, in the new language
    }
    setSettings(next);
  };
  useEffect(() => {
    // the skip link is the page's own (index.html), outside what Preact draws: said again
    // whenever the language changes
    const skip = document.querySelector('.skip-link');
    if (skip) skip.textContent = t('skip.link');
  }, [settings.language]);
  useEffect(() => {
    document.title =
      where.screen === 'lobby'
        ? t('title.lobby')
        : where.screen === 'watch'
          ? t('title.watch')
          : where.screen === 'review'
            ? t('title.review')
            : where.screen === 'player'
              ? t('title.player', { name: where.id })
              : where.screen === 'leaderboard'
                ? t('board.title')
                : t('title.table');
    window.scrollTo(0, 0);
  }, [where.screen, where.id]);
  if (where.screen === 'lobby') {
    return html`<${Lobby} key=${`lobby-${where.invite || ''}`} invite=${where.invite} settings=${settings} onSettings=${onSettings} />`;
  }
  if (where.screen === 'player') {
    return html`<${ProfileScreen} key=${`player-${where.id}`} name=${where.id} settings=${settings} onSettings=${onSettings} />`;
  }
  if (where.screen === 'leaderboard') {
    return html`<${LeaderboardScreen} pool=${where.id} settings=${settings} onSettings=${onSettings} />`;
  }
  if (where.screen === 'review') {
    return html`<${ReviewScreen}
      key=${`review-${where.id}-${where.seat || ''}`}
      tableId=${where.id}
      seat=${where.seat}
      settings=${settings}
      onSettings=${onSettings}
    />`;
  }
  return html`<${TableScreen}
    key=${`${where.screen}-${where.id}`}
    tableId=${where.id}
    watch=${where.screen === 'watch'}
    settings=${settings}
    onSettings=${onSettings}
  />`;
}

async function start() {
  const settings = store.settings();
  await setLanguage(preferredLanguage(settings.language));
  await loadRules(currentLanguage());
  const root = document.getElementById('app');
  root.textContent = '';
  render(html`<${App} initialSettings=${settings} />`, root);
}

start();
