import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Most test files wait on child processes and sockets, not the CPU: two files at a time on a 2-core
    // machine (vitest's default there is one) took the suite from ~214 s to ~131 s on the same loaded machine.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
