import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// src/core is the domain: it must not know about transports or terminals (DESIGN.md section 2).
const transportImports = ['fastify', 'fastify/*', '@fastify/*', 'commander', 'inquirer', '@inquirer/*', 'chalk', 'ora', 'cli-table3'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', fetch: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', structuredClone: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: transportImports, message: 'src/core imports no transport or terminal library (DESIGN.md section 2).' }] }],
      'no-restricted-properties': ['error', { object: 'console', property: 'log', message: 'core never prints; return values or throw PagejsonError.' }],
    },
  },
);
