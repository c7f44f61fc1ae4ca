import js from '@eslint/js';
import globals from 'globals';
import packageBoundaries from './eslint-rules/package-boundaries.js';

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '**/vendor/**', 'test-artifacts/**'] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser, ...globals.mocha },
    },
    plugins: { mutp: { rules: { 'package-boundaries': packageBoundaries } } },
    rules: {
      'mutp/package-boundaries': 'error',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'prefer-const': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
];
