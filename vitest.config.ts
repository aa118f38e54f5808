import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests open real sockets and start real SDK peers; two cores, so keep forks few.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
