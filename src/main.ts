/** Process entry: configuration, the app, a banner for people, graceful stop on SIGTERM/SIGINT. */
import { demoPersonas } from '../seeds/index.js';
import { startApp } from './app.js';
import { ConfigError, helpText, loadConfig } from './config.js';
import { createLogger } from './logger.js';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(helpText());
  process.exit(0);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n\nRun with --help to see every variable.\n`);
  process.exit(2);
}

const logger = createLogger(config.LOG_LEVEL);
const app = await startApp(config, logger);
logger.info({ url: app.url, mongoUri: app.mongoUri }, 'listening');

const seeded = config.SEED_DEMO ?? !config.MONGODB_URI;
const banner = [
  '',
  `  GraphiQL:      ${app.url}/graphql`,
  `  REST base URL: ${app.url}/external/v1`,
  `  MongoDB:       ${app.mongoUri}`,
  ...(seeded
    ? ['', '  Demo personas (send the key as X-Api-Key; connected apps as Authorization: Bearer):'].concat(
        demoPersonas.map((p) => `    ${p.label.padEnd(28)} ${p.email.padEnd(28)} ${p.apiKey}`),
      )
    : []),
  '',
];
process.stderr.write(`${banner.join('\n')}\n`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  try {
    await app.close();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'error during shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
