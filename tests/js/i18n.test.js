// i18n.js: every text through t(), placeholders filled, plurals chosen by {n}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, setBrowserLanguages } from './web.js';

const i18n = await load('i18n.js');
const en = (await load('locales/en.js')).default;

test('t() fills the placeholders of a message', () => {
  assert.equal(i18n.t('event.meld', { who: 'Ann', cards: '9♠ 10♠ J♠' }), 'Ann melded 9♠ 10♠ J♠.');
  assert.equal(i18n.t('summary.title', { n: 3 }), 'Hand 3 is over');
  assert.equal(i18n.t('app.name'), 'Rummy 500');
});

test('t() leaves a placeholder it has no value for as it is', () => {
  assert.equal(i18n.t('event.meld', { who: 'Ann' }), 'Ann melded {cards}.');
  assert.equal(i18n.t('event.meld', { who: 'Ann', cards: null }), 'Ann melded {cards}.');
  assert.equal(i18n.t('event.meld', { who: 0, cards: '' }), '0 melded .', 'falsy values are still values');
});

test('t() chooses the plural form by n', () => {
  assert.equal(i18n.t('event.take', { who: 'Ben', n: 1, card: 'Q♥' }), 'Ben took the Q♥ from the discard pile.');
  assert.equal(
    i18n.t('event.take', { who: 'Ben', n: 2, card: '9♦' }),
    'Ben took 2 cards from the discard pile, down to the 9♦.',
  );
  assert.equal(i18n.t('event.take.some', { who: 'Ben', n: 0 }), 'Ben took 0 cards from the discard pile.');
  assert.equal(i18n.t('event.rummy', { who: 'Ann', n: 11 }), 'Ann called Rummy! and took 11 cards.');
});

test('a plural message without n, or without the form asked for, takes its "other" form', () => {
  assert.equal(i18n.t('event.rummy', { who: 'Ann' }), 'Ann called Rummy! and took {n} cards.');
  assert.equal(i18n.t('event.rummy', { who: 'Ann', n: '1' }), 'Ann called Rummy! and took 1 cards.');
});

test('an unknown key is shown as itself, with a warning', (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  assert.equal(i18n.t('no.such.message'), 'no.such.message');
  assert.equal(warn.mock.callCount(), 1);
});

test('every plural message of the English catalog has its "one" and "other" forms', () => {
  const plural = Object.entries(en).filter(([, m]) => typeof m === 'object');
  assert.ok(plural.length > 5);
  for (const [key, forms] of plural) {
    assert.deepEqual(Object.keys(forms).sort(), ['one', 'other'], key);
  }
});

test("the browser's first language with a catalog is chosen, else English", () => {
  setBrowserLanguages(['xx-YY', 'EN-us']);
  assert.equal(i18n.preferredLanguage(''), 'en');
  setBrowserLanguages(['xx']);
  assert.equal(i18n.preferredLanguage(''), 'en');
  assert.equal(i18n.preferredLanguage('en'), 'en');
  setBrowserLanguages(['en-GB', 'en']);
});

test('setting a language without a catalog falls back to English and says so to the page', async () => {
  await i18n.setLanguage('xx');
  assert.equal(i18n.currentLanguage(), 'en');
  assert.equal(globalThis.document.documentElement.lang, 'en');
  assert.equal(i18n.t('summary.title', { n: 2 }), 'Hand 2 is over');
});

test("every language's plurals follow its own rules, and English fills what a catalog lacks", async () => {
  const { LANGUAGES } = await load('locales/languages.js');
  for (const code of Object.keys(LANGUAGES)) {
    await i18n.setLanguage(code);
    assert.equal(i18n.currentLanguage(), code);
    assert.equal(globalThis.document.documentElement.lang, code);
    const catalog = code === 'en' ? en : (await load(`locales/${code}.js`)).default;
    const rules = new Intl.PluralRules(code);
    for (const [key, forms] of Object.entries(catalog)) {
      if (typeof forms !== 'object') continue;
      for (const n of [0, 1, 2, 5, 21]) {
        const form = forms[rules.select(n)] ?? forms.other;
        assert.equal(i18n.t(key, { n }), form.replaceAll('{n}', String(n)), `${code} ${key} n=${n}`);
      }
    }
    const missing = Object.keys(en).filter((key) => !(key in catalog));
    for (const key of missing) {
      assert.equal(i18n.t(key), typeof en[key] === 'object' ? en[key].other : en[key], `${code} ${key}`);
    }
  }
  await i18n.setLanguage('en');
});
