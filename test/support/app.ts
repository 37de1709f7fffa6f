/**
 * Starts the whole service in-process on the embedded engine with the demo data, on an ephemeral
 * port, and gives tests a way to call both doors as the demo personas.
 */
import type { Writable } from 'node:stream';
import type { CommandStartedEvent } from 'mongodb';
import { demoPersonas } from '../../seeds/index.js';
import { type App, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

export interface TestApp {
  app: App;
  url: string;
  close(): Promise<void>;
  /** POSTs a GraphQL operation; `key` is sent as X-Api-Key unless it starts with "Bearer ". */
  graphql(query: string, variables?: Record<string, unknown>, key?: string): Promise<GraphQLResponse>;
  /** Collects the driver's commands while `fn` runs. */
  countCommands<T>(fn: () => Promise<T>): Promise<{ result: T; commands: CommandStartedEvent[] }>;
}

export interface GraphQLResponse {
  status: number;
  headers: Headers;
  body: {
    data?: any;
    errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[];
  };
}

export function keyOf(label: string): string {
  const persona = demoPersonas.find((p) => p.label === label);
  if (!persona)
    throw new Error(`no demo persona "${label}"; have: ${demoPersonas.map((p) => p.label).join(', ')}`);
  return persona.apiKey;
}

export function authHeaders(key: string | undefined): Record<string, string> {
  if (!key) return {};
  return key.startsWith('Bearer ') ? { authorization: key } : { 'x-api-key': key };
}

export async function startTestApp(
  env: Record<string, string> = {},
  /** Where the log goes, at debug level, for a test that reads it (test/support/log-lines.ts). */
  logSink?: Writable,
): Promise<TestApp> {
  // Limits high enough for suites that call thousands of times; rate-limit tests set their own.
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'true',
    // Each test app starts from the demo data and leaves nothing behind.
    EMBEDDED_MONGO_PATH: ':memory:',
    // On the test's own event loop: a thread per app costs the suite about a fifth more time.
    // The thread itself is tested by test/service/engine-thread.test.ts and the process tests.
    EMBEDDED_MONGO_THREAD: 'inline',
    // The same for the delivery worker (test/delivery/thread.test.ts tests its thread).
    DELIVERY_WORKER_THREAD: 'inline',
    // Tests count the commands a request costs: no write of keys' last use in the middle of one
    // (it is written when the app closes; test/graphql/api-keys.test.ts sets its own).
    MONGODB_COMMAND_METRICS: 'true',
    LAST_USED_WRITE_MS: '3600000',
    RATE_LIMIT_GENERAL: '1000000',
    RATE_LIMIT_HEAVY: '1000000',
    // A window of ~31 years: windows are fixed (aligned to the clock) and a boundary inside a test
    // resets every count, so a test expecting a 429 would see its request allowed.
    RATE_LIMIT_WINDOW_SECONDS: '1000000000',
    ADMISSION_HEAVY_PER_CREDENTIAL: '1000',
    ADMISSION_BUDGET_MB: '1000000',
    // The test's own work shares this event loop (and the inline engine runs on it): no shedding
    // on its delay unless a test asks for it (test/service/overload.test.ts).
    ADMISSION_MAX_LOOP_DELAY_MS: '3600000',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    ...env,
  });
  const app = await startApp(
    config,
    logSink ? createLogger('debug', logSink) : createLogger(config.LOG_LEVEL),
  );
  return {
    app,
    url: app.url,
    close: () => app.close(),
    async graphql(query, variables, key) {
      const res = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...authHeaders(key),
        },
        body: JSON.stringify({ query, variables }),
      });
      return {
        status: res.status,
        headers: res.headers,
        body: (await res.json()) as GraphQLResponse['body'],
      };
    },
    async countCommands(fn) {
      const commands: CommandStartedEvent[] = [];
      const stop = app.database.onCommand((e) => commands.push(e));
      try {
        const result = await fn();
        return { result, commands };
      } finally {
        stop();
      }
    },
  };
}
