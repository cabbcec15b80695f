// What every test of the browser game's scripts needs: the import hooks (resolve-web.js), the
// few browser globals that some functions touch (navigator, document, localStorage), `load`,
// which imports a script of src/rummy500/web/js after they are in place, and what the server
// sends: its rules catalog (rules-catalog.json, GET /api/rules in English) and moves as data.
import { register } from 'node:module';
import { readFileSync } from 'node:fs';

register('./resolve-web.js', import.meta.url);

function stub(name, value) {
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
}

/** The browser's preferred languages, as `navigator` tells them; `[]` for none. */
export function setBrowserLanguages(languages) {
  stub('navigator', { languages, language: languages[0] });
}

/** localStorage over a Map (store.js keeps the player's name, seats and settings there). */
export function freshStorage() {
  const items = new Map();
  const storage = {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key),
    clear: () => items.clear(),
    key: (i) => [...items.keys()][i] ?? null,
    get length() {
      return items.size;
    },
  };
  stub('localStorage', storage);
  return storage;
}

setBrowserLanguages(['en-GB', 'en']);
stub('document', { documentElement: { lang: 'en' } });
freshStorage();

/** Import src/rummy500/web/js/<name> (after the hooks and stubs above are in place). */
export function load(name) {
  return import(new URL(`../../src/rummy500/web/js/${name}`, import.meta.url).href);
}

/** The server's rules catalog in English (tests/web/test_catalog.py keeps it the server's). */
export const RULES_CATALOG = JSON.parse(readFileSync(new URL('./rules-catalog.json', import.meta.url), 'utf8'));

// the scripts see the server's catalog, as the page does once it has loaded it
(await load('rules.js')).setRules(RULES_CATALOG);

/**
 * A move as the server sends it (docs/protocol.md, "Moves as data"; the engine's
 * `Move.to_json()`): its notation and its parts. Test data only, written from a move in
 * notation as the engine writes it (tests/web/test_catalog.py checks it against the engine).
 */
export function moveData(text) {
  const [seat, verb, ...args] = text.split(' ');
  const data = { move: text, seat, verb, cards: [], number: null, end: null };
  if (verb === 'take' || verb === 'rummy') data.number = Number(args[0]);
  else if (verb === 'meld') data.cards = args;
  else if (verb === 'discard') data.cards = [args[0]];
  else if (verb === 'layoff') Object.assign(data, { cards: [args[0]], number: Number(args[1]), end: args[2] || null });
  return data;
}

/** The HTML of a Preact element, rendered with the page's own Preact (web/vendor). */
export async function renderToString(element) {
  const { renderToString: render } = await import('preact-render-to-string');
  return render(element);
}

/** The text of some HTML, tags taken out and spaces collapsed (what a reader of the page reads). */
export function textOf(markup) {
  return markup
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text of each <tr> of some HTML's first table body ('' when there is none). */
export function rowsOf(markup, part = 'tbody') {
  const body = new RegExp(`<${part}>([\\s\\S]*?)</${part}>`).exec(markup);
  if (!body) return [];
  return [...body[1].matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => textOf(m[1]));
}
