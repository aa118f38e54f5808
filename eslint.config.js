// Lint runs as part of `npm test`. Type-aware rules are left to `tsc` (typecheck) to keep lint fast.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/out/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
    },
  },
  {
    // The console page (issue #15) runs in the browser: DOM globals, no Node ones.
    files: ['src/console/ui/**/*.ts'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        addEventListener: 'readonly',
        removeEventListener: 'readonly',
        dispatchEvent: 'readonly',
        EventSource: 'readonly',
        PopStateEvent: 'readonly',
        MessageEvent: 'readonly',
        URLSearchParams: 'readonly',
        HTMLElement: 'readonly',
      },
    },
  },
  {
    // Tests read JSON bodies whose shape is the thing under assertion.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Telemetry consumes decoded facts (docs/ARCHITECTURE.md principle 7): only src/telemetry/ may
    // import a metrics or tracing library.
    files: ['src/**/*.ts'],
    ignores: ['src/telemetry/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['prom-client', '@opentelemetry/*'],
              message: 'only src/telemetry/ imports prom-client or OpenTelemetry.',
            },
          ],
        },
      ],
    },
  },
  {
    // Pure decoders: no I/O, no Node or HTTP imports (docs/ARCHITECTURE.md principle 3).
    files: ['src/a2a/**/*.ts', 'src/codec/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'http', 'https', 'net', 'fs', 'stream'],
              message: 'a2a/ and codec/ are pure: no Node I/O imports.',
            },
            {
              group: ['hono', 'hono/*', '@hono/*', 'undici', 'prom-client', '@opentelemetry/*', 'pino'],
              message: 'a2a/ and codec/ are pure: no framework, transport or telemetry imports.',
            },
          ],
        },
      ],
    },
  },
);
