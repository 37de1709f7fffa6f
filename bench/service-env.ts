/**
 * The environments of services the bench and the soak start. A service started to be measured, by
 * the bench (its servers and the engine scenario's) and by the soak: no demo data, a free loopback port, limits out of the way of the
 * load (one key drives every connection), a database timeout the embedded engine keeps under load,
 * and what the webhook fan-out needs. Each caller adds what is its own.
 */
import { fanoutEnv } from './fanout.js';

export function measuredServiceEnv(options: {
  uri: string;
  db: string;
  logLevel: string;
  /** SHA-256 of the service token the fan-out ingests with (fanout.ts, serviceToken). */
  tokenSha256: string;
}): Record<string, string> {
  return {
    MONGODB_URI: options.uri,
    MONGODB_DB: options.db,
    SEED_DEMO: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: options.logLevel,
    // The load's keys must never be refused: the limits are not what is measured.
    RATE_LIMIT_GENERAL: '1000000000',
    RATE_LIMIT_HEAVY: '1000000000',
    // One key drives every connection; the process-wide budget stays as in production.
    ADMISSION_HEAVY_PER_CREDENTIAL: '1000000',
    // The embedded engine is one JS thread: under this load a command may take longer than the
    // production bound, which would measure the engine, not the service.
    MONGODB_TIMEOUT_MS: '15000',
    SHUTDOWN_GRACE_MS: '2000',
    ...fanoutEnv(options.tokenSha256), // INGEST_TOKEN_SHA256, EGRESS_ALLOW_CIDRS=127.0.0.1/32, DELIVERY_WORKER
  };
}

/**
 * The environment of a service of a scenario's own, on the demo data in memory (oauth.ts,
 * changes.ts): its commands counted, and nothing written by the clock between counted requests.
 */
export function demoServiceEnv(logLevel: string): Record<string, string> {
  return {
    SEED_DEMO: 'true',
    EMBEDDED_MONGO_PATH: ':memory:',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: logLevel,
    LAST_USED_WRITE_MS: '3600000',
    MONGODB_COMMAND_METRICS: 'true',
  };
}
