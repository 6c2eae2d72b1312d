import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';
import local from './eslint-rules/max-own-lines.js';

// src/core is the domain: it must not know about transports or terminals (docs/architecture.md).
const transportImports = ['fastify', 'fastify/*', '@fastify/*', 'commander', 'inquirer', '@inquirer/*', 'chalk', 'ora', 'cli-table3'];

// The stages of src/core from the bottom up (docs/architecture.md): a folder imports only folders before it,
// and only through their index.ts. test/unit/architecture.test.ts holds the composition root (src/core/runtime.ts,
// the one file at the top) to the same rule and checks that every stage folder is listed here.
export const CORE_LAYERS = [
  'shared',
  'config',
  'state',
  'fetch',
  'extract',
  'registry',
  'models',
  'edit',
  'cache',
  'access',
  'health',
  'monitor',
  'catalog',
  'generation',
  'retrieval',
  'jobs',
];

const stage = (stages) => ({ type: 'core', captured: { stage: stages } });
const stagePolicies = [
  ...CORE_LAYERS.map((layer, index) => ({
    from: { element: stage(layer) },
    allow: { to: { element: { ...stage(CORE_LAYERS.slice(0, index)), fileInternalPath: 'index.ts' } } },
  })),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Functions small enough to read in one sitting (docs/architecture.md).
    files: ['src/core/**/*.ts', 'src/daemon/**/*.ts'],
    plugins: { local },
    rules: { 'local/max-own-lines': ['error', { max: 60 }] },
  },
  {
    files: ['src/core/**/*.ts', 'src/core/**/*.cts'],
    plugins: { boundaries },
    settings: {
      'boundaries/include': ['src/core/**/*'],
      'boundaries/elements': [{ type: 'core', pattern: 'src/core/*', capture: ['stage'] }],
      'import/resolver': { typescript: { project: './tsconfig.json' } },
    },
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: transportImports, message: 'src/core imports no transport or terminal library (docs/architecture.md).' }] },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'console', property: 'log', message: 'core never prints; return values or throw PagejsonError.' },
      ],
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: stagePolicies,
          message: 'a stage imports only the stages below it, through their index.ts (docs/architecture.md)',
        },
      ],
    },
  },
);
