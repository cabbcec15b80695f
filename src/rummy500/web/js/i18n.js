// Every text a player sees goes through t(). The English catalog is locales/en.js; another
// language is one more file in locales/ listed in locales/languages.js (no code to change).
import en from './locales/en.js';
import { LANGUAGES } from './locales/languages.js';

const catalogs = { en };
let current = en;
let language = 'en';
let plurals = new Intl.PluralRules('en');

export { LANGUAGES };

/** The language in use ('en', …). */
export function currentLanguage() {
  return language;
}

/** The first of the browser's languages that has a catalog, else English. */
export function preferredLanguage(saved) {
  const wanted = [saved, ...(navigator.languages || [navigator.language || 'en'])];
  for (const tag of wanted) {
    if (!tag) continue;
    const code = tag.toLowerCase();
    if (code in LANGUAGES) return code;
    const base = code.split('-')[0];
    if (base in LANGUAGES) return base;
  }
  return 'en';
}

/** Load a language's catalog (English fills any message it lacks). */
export async function setLanguage(code) {
  if (!(code in LANGUAGES)) code = 'en';
  if (!catalogs[code]) {
    try {
      catalogs[code] = (await import(`./locales/${code}.js`)).default;
    } catch (e) {
      console.warn('no catalog for', code, e);
      code = 'en';
    }
  }
  current = catalogs[code];
  language = code;
  plurals = new Intl.PluralRules(code);
  document.documentElement.lang = code;
}

/** A number as the current language writes it (its decimal mark: 2.5, 2,5): Intl.NumberFormat,
 * with its `options` (at most one decimal by default). */
export function formatNumber(x, options = { maximumFractionDigits: 1 }) {
  return new Intl.NumberFormat(language, options).format(x);
}

/**
 * The message `key` in the current language with `{name}` placeholders filled from `vars`.
 * A message may be plural: an object of Intl.PluralRules categories chosen by `vars.n`.
 */
export function t(key, vars) {
  let message = current[key] ?? en[key];
  if (message === undefined) {
    console.warn('untranslated message', key);
    return key;
  }
  if (typeof message === 'object') {
    const n = vars && typeof vars.n === 'number' ? vars.n : 0;
    message = message[plurals.select(n)] ?? message.other;
  }
  if (!vars) return message;
  return message.replace(/\{(\w+)\}/g, (whole, name) =>
    vars[name] === undefined || vars[name] === null ? whole : String(vars[name]),
  );
}
