/** Process entry: configuration, the app, a banner for people, graceful stop on SIGTERM/SIGINT. */
// First: tracing patches http, graphql and mongodb before anything imports them (see telemetry.ts).
import '../telemetry-service.js';
import path from 'node:path';
import { demoPersonas } from '../../seeds/index.js';
import { type App, startApp } from '../app.js';
import { helpText, loadConfig } from '../config.js';
import { configOrExit, exitOnStartupFailure, exitOnStopSignal } from '../lifecycle.js';
import { createLogger } from '../logger.js';
import { redactCredentials } from '../redact.js';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(helpText());
  process.exit(0);
}

const config = configOrExit(loadConfig, 'Run with --help to see every variable.');

const logger = createLogger(config.LOG_LEVEL);
// Registered before starting: a stop asked for while starting exits 0 at once (nothing to drain).
let app: App | undefined;
exitOnStopSignal(logger, config.SHUTDOWN_GRACE_MS, async () => app?.close());
try {
  app = await startApp(config, logger);
} catch (error) {
  exitOnStartupFailure(error, config.MONGODB_URI);
}
const mongoUri = redactCredentials(app.mongoUri);
logger.info({ url: app.url, mongoUri }, 'listening');

const seeded = app.demoLoaded;
const dataPath = config.EMBEDDED_MONGO_PATH;
const data = config.MONGODB_URI
  ? []
  : [
      dataPath
        ? `  Data:          ${path.resolve(dataPath)}   (EMBEDDED_MONGO_PATH)`
        : '  Data:          in memory only, lost on exit (EMBEDDED_MONGO_PATH=:memory:)',
    ];
const banner = [
  '',
  `  Home page:     ${app.url}/   (links, demo keys, errors)`,
  `  GraphiQL:      ${app.url}/graphql`,
  `  REST base URL: ${app.url}/external/v1`,
  `  MongoDB:       ${mongoUri}`,
  ...data,
  ...(seeded
    ? ['', '  Demo personas (send the key as X-Api-Key; connected apps as Authorization: Bearer):'].concat(
        demoPersonas.map((p) => `    ${p.label.padEnd(28)} ${p.email.padEnd(28)} ${p.apiKey}`),
      )
    : []),
  '',
];
process.stderr.write(`${banner.join('\n')}\n`);
