// The language picker of the start page's and the table's top bars: every language the game
// speaks, each in its own name (so that a player who cannot read the current one finds theirs).
// The choice is kept in the settings (store.js) and switches the page at once, without a reload.
// On a phone it takes the room of a globe and the code (HU): the select lies over them, unseen.
import { html } from './lib.js';
import { t, currentLanguage, LANGUAGES } from './i18n.js';

const GLOBE = html`<svg class="language-globe" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
  <circle cx="12" cy="12" r="9.5" fill="none" stroke="currentColor" stroke-width="1.6" />
  <path d="M2.5 12h19M12 2.5c3 3.2 3 15.8 0 19M12 2.5c-3 3.2-3 15.8 0 19" fill="none" stroke="currentColor" stroke-width="1.6" />
</svg>`;

/** A select of the languages, shown only when there are several. */
export function LanguagePicker({ settings, onSettings }) {
  const languages = Object.entries(LANGUAGES);
  if (languages.length < 2) return null;
  const label = t('settings.language');
  const code = currentLanguage();
  return html`<label class="language-picker" title=${label}>
    ${GLOBE}
    <span class="language-code" aria-hidden="true">${code.toUpperCase()}</span>
    <select
      aria-label=${label}
      data-setting="language-picker"
      value=${code}
      onChange=${(e) => onSettings({ ...settings, language: e.target.value })}
    >
      ${languages.map(([value, name]) => html`<option key=${value} value=${value} lang=${value}>${name}</option>`)}
    </select>
  </label>`;
}
