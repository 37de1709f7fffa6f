import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    alias: [
      // One graphql module for everyone: Node loads graphql's CommonJS entry for the dependencies,
      // so the sources must not get the .mjs one Vite would pick (graphql refuses two realms).
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      // The engine package's sources, as tsconfig.json's `paths` gives them to tsc and tsx.
      {
        find: /^@meetings\/embedded-mongo$/,
        replacement: new URL('./packages/embedded-mongo/src/index.ts', import.meta.url).pathname,
      },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      // The engine's own suite, with its own configuration (npm test -w @meetings/embedded-mongo).
      'packages/embedded-mongo',
      {
        extends: true,
        test: {
          name: 'gateway',
          include: ['test/**/*.test.ts'],
          // Each worker process runs its files one after another without loading every module again
          // for each file (that took half the suite's time: 8.3 minutes isolated, 5.3 not). Safe while
          // tests leave globals alone: none changes process.env, mocks a module or fakes timers, and each
          // file starts its own service and engine.
          poolOptions: { forks: { isolate: false } },
          // Services the tests start (in-process or `npm start`) keep the embedded engine in memory.
          env: { EMBEDDED_MONGO_PATH: ':memory:' },
        },
      },
    ],
  },
});
