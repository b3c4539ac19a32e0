import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Suites that spawn the CLI or bind ports are independent; run files in parallel, tests in order.
    fileParallelism: true,
    // Three files at a time, whatever the cores: most of a file's time is spent waiting on the
    // processes, servers and timers it drives, not on the CPU (vitest's default on a 2-core machine
    // is one file at a time). Each file claims its own Redis database and PostgreSQL schema.
    maxWorkers: 3,
  },
});
