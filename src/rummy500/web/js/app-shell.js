// What every screen shares: moving between screens without reloading, and the settings.
import { html, cls } from './lib.js';
import { t, LANGUAGES } from './i18n.js';
import { COMPUTER_SPEEDS, DEFAULT_COMPUTER_SPEED } from './pace.js';

/** Go to `path` (for example '/?table=ID') as a link would, without reloading the page. */
export function navigate(path) {
  if (path !== location.pathname + location.search) history.pushState({}, '', path);
  window.dispatchEvent(new Event('r500:navigate'));
}

export const SPEEDS = ['none', 'slow', 'normal', 'fast'];

/** Whether the system asks for less motion. */
export function reducedMotion() {
  return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** The length of an animation of `base` ms at a speed setting (0 for none or reduced motion). */
export function animationMs(speed, base) {
  if (speed === 'none' || reducedMotion()) return 0;
  return Math.round(base * ({ slow: 1.8, normal: 1, fast: 0.5 }[speed] || 1));
}

/** The animation speed (and the language when there are several). */
export function Settings({ settings, onSettings, compact }) {
  const languages = Object.entries(LANGUAGES);
  return html`<details class=${cls('settings', compact && 'compact')}>
    <summary>${t('settings.title')}</summary>
    <div class="settings-body">
      <label>
        ${t('settings.speed')}
        <select
          value=${settings.speed}
          onChange=${(e) => onSettings({ ...settings, speed: e.target.value })}
          data-setting="speed"
        >
          ${SPEEDS.map((s) => html`<option key=${s} value=${s}>${t(`speed.${s}`)}</option>`)}
        </select>
      </label>
      ${reducedMotion() && html`<p class="muted">${t('settings.reduced')}</p>`}
      <label>
        ${t('settings.computer')}
        <select
          value=${settings.computerSpeed || DEFAULT_COMPUTER_SPEED}
          onChange=${(e) => onSettings({ ...settings, computerSpeed: e.target.value })}
          data-setting="computer-speed"
        >
          ${Object.keys(COMPUTER_SPEEDS).map((s) => html`<option key=${s} value=${s}>${t(`computer.speed.${s}`)}</option>`)}
        </select>
      </label>
      <label class="setting-check">
        <input
          type="checkbox"
          checked=${!!settings.sound}
          onChange=${(e) => onSettings({ ...settings, sound: e.target.checked })}
          data-setting="sound"
        />
        ${t('settings.sound')}
      </label>
      ${languages.length > 1 &&
      html`<label>
        ${t('settings.language')}
        <select value=${settings.language} onChange=${(e) => onSettings({ ...settings, language: e.target.value })}>
          <option value="">${t('settings.language.auto')}</option>
          ${languages.map(([code, label]) => html`<option key=${code} value=${code}>${label}</option>`)}
        </select>
      </label>`}
    </div>
  </details>`;
}
