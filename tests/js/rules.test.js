// rules.js and the start page: the rule options, presets and computer levels are the server's
// catalog (GET /api/rules, given here as rules-catalog.json), shown in its words; the page has no
// copy of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, renderToString, textOf, RULES_CATALOG } from './web.js';

const { html } = await load('lib.js');
const rules = await load('rules.js');
const { Lobby, rulesDetails, rulesSummary } = await load('lobby.js');
const { LevelBadge } = await load('names.js');

/** The catalog with other words, as a server in another language sends it. */
function translated() {
  const other = structuredClone(RULES_CATALOG);
  other.options.jokers.name = 'Jokerek';
  other.options.jokers.choices.off = { name: 'joker nélkül', help: 'Nincs joker: az eredeti játék.' };
  other.presets.hoyle.name = 'Hoyle-féle';
  other.level_names.medium = 'közepes';
  other.levels.medium = 'megtervezi a kirakásait.';
  return other;
}

test('the rules in words are the catalog\'s words', () => {
  rules.setRules(translated());
  try {
    assert.deepEqual(rulesDetails('jokers=off target=500'), [
      'Target: the first to 500 points wins.',
      'Rules: No jokers.',
      'Jokerek: Nincs joker: az eredeti játék.',
    ]);
    assert.equal(rulesDetails('pickup=must-meld')[1], 'Rules: Hoyle-féle.');
    assert.equal(rulesSummary('jokers=off target=300'), 'Jokerek: joker nélkül · target 300');
  } finally {
    rules.setRules(RULES_CATALOG);
  }
});

test('a preset is named when the options and the target are its own, the one that says most', () => {
  assert.equal(rulesDetails('target=200')[1], 'Rules: Quick (to 200).');
  assert.equal(rulesDetails('target=300')[1], 'Rules: Standard.');
  assert.equal(rulesDetails('jokers=off target=200')[1], 'Rules: No jokers.');
  assert.equal(rulesDetails('values=5-10-15 rummy=off')[1], 'Rules: your own mix.');
});

test('levels and presets come in the catalog\'s order, their help said as a sentence', () => {
  assert.deepEqual(rules.levelNames(), Object.keys(RULES_CATALOG.level_names));
  assert.equal(rules.levelNames().at(-1), 'random', 'the level for testing last');
  assert.deepEqual(rules.presetNames(), Object.keys(RULES_CATALOG.presets));
  assert.match(rules.presetHelp('hoyle'), /^As the card-game books have it: /);
  assert.match(rules.levelHelp('easy'), /^Greedy and short-sighted/);
  assert.deepEqual(rules.presetOptions('quick'), { target: 200 });
  assert.deepEqual(rules.ruleValues('jokers=off  target=300 junk'), { jokers: 'off', target: '300' });
});

test('a computer player\'s badge names its level as the catalog does', async () => {
  rules.setRules(translated());
  try {
    const badge = await renderToString(html`<${LevelBadge} level="medium" />`);
    assert.equal(textOf(badge), 'computer, közepes');
    assert.match(badge, /title="Megtervezi a kirakásait\."/);
  } finally {
    rules.setRules(RULES_CATALOG);
  }
});

/** The [value, text] of each <option> of some HTML. */
function optionsOf(markup) {
  const valueOf = (attributes) => (/value="([^"]*)"/.exec(attributes) || [null, ''])[1];
  return [...markup.matchAll(/<option([^>]*)>([^<]*)<\/option>/g)].map((m) => [valueOf(m[1]), m[2]]);
}

test('the new-table form offers the catalog\'s presets, options and levels', async () => {
  globalThis.window = { matchMedia: () => ({ matches: false }) }; // the settings ask for motion
  let page;
  try {
    page = await renderToString(html`<${Lobby} invite=${null} settings=${{ speed: 'normal', language: '' }} onSettings=${() => {}} />`);
  } finally {
    delete globalThis.window;
  }
  const select = (id) => {
    const found = new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(page);
    assert.ok(found, id);
    return optionsOf(found[1]);
  };
  assert.deepEqual(
    select('preset'),
    Object.entries(RULES_CATALOG.presets).map(([key, preset]) => [key, preset.name]),
  );
  for (const [name, option] of Object.entries(RULES_CATALOG.options)) {
    if (!option.values) continue;
    const shown = select(`option-${name}`);
    assert.deepEqual(shown.slice(1), option.values.map((v) => [v, option.choices[v].name]), name);
    assert.deepEqual(shown[0], ['', `As the preset: ${option.choices[option.default].name}`]);
  }
  const level = /<select aria-label="Level of the computer in seat 2"[^>]*>([\s\S]*?)<\/select>/.exec(page);
  assert.ok(level);
  assert.deepEqual(
    optionsOf(level[1]).map(([value]) => value),
    Object.keys(RULES_CATALOG.level_names),
  );
  assert.match(textOf(page), /Greedy and short-sighted/, 'the computer seat says how it plays');
});
