import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Most test files wait on child processes and sockets, not the CPU: three files at a time on a 2-core
    // machine (vitest's default there is one) run 484 tests in ~80 s, where one at a time ran 335 in 145 s;
    // it passes with two CPU hogs running too (CONTRIBUTING.md).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
