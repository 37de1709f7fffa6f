import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'embedded-mongo',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every file gets the engine's modules afresh, also when the root's run (which keeps worker
    // processes from one file to the next) runs this project beside the gateway's.
    poolOptions: { forks: { isolate: true } },
  },
});
