import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * The gateway's files whose assertions depend on time: a bound on a latency or a delay (shedding,
 * overload, stalled clients, outages, grace periods, timeouts, how soon a change shows) or a cache
 * entry still being there a moment later, which other files working beside them would eat into.
 * They run after everything else, one file at a time, in one process (the `gateway-serial`
 * project); why each is here: docs/contributors/testing.md#how-long-the-suite-and-ci-take.
 */
const serialFiles = [
  'test/service/signals.test.ts',
  'test/service/process-timing.test.ts',
  'test/service/load-shedding.test.ts',
  'test/service/overload.test.ts',
  'test/service/stalled-clients.test.ts',
  'test/service/outage.test.ts',
  'test/service/engine-thread.test.ts',
  'test/service/read-cache.test.ts',
  'test/delivery/timeout.test.ts',
  'test/delivery/thread.test.ts',
  'test/delivery/ingest-references.test.ts',
  'test/graphql/api-keys.test.ts',
];

// Services the tests start (in-process or `npm start`) keep the embedded engine in memory.
const env = { EMBEDDED_MONGO_PATH: ':memory:' };

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
    // Worker processes are kept from one file to the next, and the gateway's files share the loaded
    // modules (a fresh process per file loaded every module again: 1.5 s a file, half the suite's
    // CPU); the engine's project sets its own `isolate`. Safe while tests leave globals alone: none
    // changes process.env, mocks a module or fakes timers; each file starts its own service and
    // engine, on port 0, and writes only into temporary directories of its own.
    poolOptions: { forks: { isolate: false } },
    // One worker a core: most of a gateway file's time is its own CPU (the service runs in the
    // test's process); CI runs two suites side by side (.ci/run). VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || Math.max(availableParallelism(), 1),
    projects: [
      // The engine's own suite, with its own configuration (npm test -w @meetings/embedded-mongo);
      // it runs beside the gateway's parallel project.
      'packages/embedded-mongo',
      {
        extends: true,
        test: {
          name: 'gateway',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...serialFiles],
          env,
        },
      },
      {
        extends: true,
        test: {
          name: 'gateway-serial',
          include: serialFiles,
          // After the parallel group, alone: one process, its files one after another.
          sequence: { groupOrder: 1 },
          poolOptions: { forks: { isolate: false, singleFork: true } },
          env,
        },
      },
    ],
  },
});
