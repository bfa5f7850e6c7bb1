// ESLint for the whole repository (`npm run lint`): typescript-eslint with type
// information from each workspace's tsconfig (projectService), the rules that
// catch lost promises and `any`, and one config module per process as the only
// reader of the environment. Formatting is Prettier's (eslint-config-prettier
// turns off the rules it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores([
    '**/node_modules/',
    'packages/proto/src/gen/', // buf generate's output: not edited, not linted
    'packages/client/src/generated/', // npm run openapi's output (the SDK's types and operation table)
    '.data/',
    '.cache/',
    '.turbo/',
    '**/dist/',
    'coverage/',
    'test/sdk-consumer/misspelt.ts', // must not compile: test/sdk-package.test.ts expects tsc's errors on it
  ]),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: {
          // Files outside every tsconfig (root configs); the root scripts have scripts/tsconfig.json.
          allowDefaultProject: ['*.ts'],
          defaultProject: 'tsconfig.base.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // The no-unsafe-* family flags every use of a value typed `any` (knex rows, parsed JSON):
      // stores return typed rows and outside JSON is checked where it comes in (docs/decisions.md, "Typed rows").
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      // Factories return closures, never classes that rely on `this`: a detached method is safe.
      '@typescript-eslint/unbound-method': 'off',
      // An async function without await is how an interface's Promise-returning method is implemented.
      '@typescript-eslint/require-await': 'off',
      // `_name` marks a binding kept on purpose (a destructured field left out, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The end-to-end tests read the API's JSON answers (`res.body` of test/support's client) and
    // assert on them field by field: there, a typed client would only move the casts. Source,
    // unit tests beside it, benchmarks and scripts keep the no-unsafe-* rules.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (scripts, examples, this file): no type information.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // One config per process: packages receive values; only config modules read the environment.
    files: ['services/**', 'packages/**'],
    rules: { 'no-process-env': 'error' },
  },
  {
    // The readers of the environment (instrumentation.ts: the OTEL_* variables, which the OpenTelemetry
    // SDK reads itself), and tests (which may look for optional infrastructure).
    files: [
      'packages/platform/src/config/values.ts',
      'packages/platform/src/instrumentation.ts',
      'services/*/src/config.ts',
      // The CLI's entry point: FEEDBACK_API_URL and FEEDBACK_API_KEY, as the flags' defaults.
      'packages/cli/src/cli.ts',
      '**/*.test.ts',
      // The store contract kit: finds the test Postgres server as the tests do (TEST_DATABASE_URL).
      'packages/db/src/store-contract.ts',
    ],
    rules: { 'no-process-env': 'off' },
  },
  prettier,
);
