import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // The JSON report is what .ci/run counts; the default reporter is for people.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    testTimeout: 60_000,
  },
});
