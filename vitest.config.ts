import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // One graphql module for everyone: Node loads graphql's CommonJS entry for the dependencies,
  // so the sources must not get the .mjs one Vite would pick (graphql refuses two realms).
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Services the tests start (in-process or `npm start`) keep the embedded engine in memory.
    env: { EMBEDDED_MONGO_PATH: ':memory:' },
  },
});
