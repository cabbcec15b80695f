// ESLint (flat config) for the browser game's scripts: plain ES modules that the browser loads as
// they are (no build step), Preact with htm templates, the libraries in web/vendor mapped by the
// page's import map. `make lint-js` runs it; `make test` too.
'use strict';

const js = require('@eslint/js');
const globals = require('globals');
const reactHooks = require('eslint-plugin-react-hooks');

module.exports = [
  {
    // the vendored libraries are other projects' code, minified
    ignores: ['src/rummy500/web/vendor/**', 'node_modules/**', 'site/**', '.venv/**'],
  },
  js.configs.recommended,
  {
    files: ['src/rummy500/web/js/**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: globals.browser,
    },
    // Preact's hooks follow React's rules: called in the same order at every render. The
    // dependency lists are not checked (exhaustive-deps): the table's effects run on purpose when
    // the server's version or the screen changes, and read the newest values through refs
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'off' },
  },
  {
    files: ['tests/js/**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: globals.node,
    },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    rules: {
      // `const { type, ...rest } = message` drops fields on purpose; unused catch bindings and
      // the leading arguments of a callback are the language's way to say "not needed"
      'no-unused-vars': ['error', { args: 'after-used', ignoreRestSiblings: true, caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'no-useless-assignment': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      'no-shadow': ['error', { builtinGlobals: false }],
      'no-implicit-coercion': ['error', { boolean: false }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      'object-shorthand': ['error', 'properties'],
      'no-useless-concat': 'error',
      'no-else-return': ['error', { allowElseIf: true }],
      curly: ['error', 'multi-line'],
    },
  },
];
