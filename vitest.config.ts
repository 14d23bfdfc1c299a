import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Most test files wait on child processes and sockets, not the CPU: three files at a time on a 2-core
    // machine (vitest's default there is one; one at a time once ran 335 tests in 145 s). The suite's size and
    // time, unloaded and with two CPU hogs, are in CONTRIBUTING.md.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
