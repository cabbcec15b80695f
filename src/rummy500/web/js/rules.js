// The rules catalog the server serves (GET /api/rules, docs/protocol.md "The rules catalog"):
// every rule option with its values, every preset and computer level, with their names and
// what they mean, in the page's language. The page keeps no copy of its own: the catalog is
// loaded before the first screen shows (this module waits for it) and again when the player
// switches language.
import { api } from './api.js';
import { preferredLanguage } from './i18n.js';
import * as store from './store.js';

const EMPTY = { options: {}, presets: {}, levels: {}, level_names: {} };
let catalog = EMPTY;
let language = null;

/** Load the catalog in `code` (the page's language), unless it is loaded already. Without the
 * server (offline) the page shows the options' own names. */
export async function loadRules(code) {
  if (code === language) return;
  try {
    catalog = await api.rules(code);
    language = code;
  } catch (e) {
    console.warn('the rules catalog did not load', e);
  }
}

/** Use `data` as the catalog (the unit tests give the server's). */
export function setRules(data) {
  catalog = data || EMPTY;
  language = null;
}

/** 'Every option' → 'Every option'; 'every option' → 'Every option' (the server's sentences
 * about presets and levels are written to follow a name in a list). */
function sentence(text) {
  return text ? text.charAt(0).toLocaleUpperCase() + text.slice(1) : '';
}

/** The options with a choice of values: [[name, { values, default, name, about, choices }], …]. */
export function choiceOptions() {
  return Object.entries(catalog.options).filter(([, option]) => option.values);
}

/** An option's default value (500 for the target when the catalog is missing). */
export function defaultOf(option) {
  const found = catalog.options[option];
  return found ? found.default : option === 'target' ? 500 : null;
}

export function optionName(option) {
  const found = catalog.options[option];
  return (found && found.name) || option;
}

/** What the option decides, in a sentence. */
export function optionAbout(option) {
  const found = catalog.options[option];
  return (found && found.about) || '';
}

function choice(option, value) {
  const found = catalog.options[option];
  return (found && found.choices && found.choices[value]) || null;
}

/** A value's short name ('no jokers'). */
export function valueName(option, value) {
  const found = choice(option, value);
  return found ? found.name : value;
}

/** What a value means, in a sentence ('No jokers: the original game.'). */
export function valueHelp(option, value) {
  const found = choice(option, value);
  return found ? found.help : value;
}

/** The presets, in the order to offer them. */
export function presetNames() {
  return Object.keys(catalog.presets);
}

export function presetName(preset) {
  const found = catalog.presets[preset];
  return (found && found.name) || preset;
}

export function presetHelp(preset) {
  const found = catalog.presets[preset];
  return sentence(found && found.help);
}

/** The options a preset changes from the defaults ({ pickup: 'must-meld' }, { target: 200 }). */
export function presetOptions(preset) {
  const found = catalog.presets[preset];
  return (found && found.options) || {};
}

/** The computer levels, in the order to offer them. */
export function levelNames() {
  return Object.keys(catalog.level_names);
}

export function levelName(level) {
  return catalog.level_names[level] || level;
}

/** What a level plays like, in a sentence. */
export function levelHelp(level) {
  return sentence(catalog.levels[level]);
}

/** A table's rules line ('jokers=off … target=300') as { option: value }. */
export function ruleValues(line) {
  const values = {};
  for (const item of (line || '').split(/\s+/)) {
    const [name, value] = item.split('=');
    if (name && value) values[name] = value;
  }
  return values;
}

// the page's first screen shows the catalog in the language it starts in (main.js)
if (typeof location !== 'undefined') await loadRules(preferredLanguage(store.settings().language));
