import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Suites that spawn the CLI or bind ports are independent; run files in parallel, tests in order.
    fileParallelism: true,
  },
});
