/**
 * `npm run ingest -- --file F`: stores one recording (JSON in the seed meeting format,
 * seeds/format.ts) in MONGODB_URI / MONGODB_DB through the same domain function as the
 * ingestRecording mutation and the seeder. When it makes the recording's content ready, the
 * matching webhook events are queued (any worker delivers them) and live subscribers of every
 * server process hear of it. Exit codes: 0 stored, 1 unexpected failure, 2 bad usage or bad data.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { connectDatabase } from '../../db/connection.js';
import { DomainError } from '../../domain/errors.js';
import { ingestRecording } from '../../domain/ingestion.js';
import { parseRecording } from '../../domain/recording-format.js';
import { redactCredentials } from '../../redact.js';

const usage = `Usage: npm run ingest -- --file FILE

  --file FILE   a recording as JSON in the seed meeting format (seeds/format.ts)
  --help        show this help

Environment:
  MONGODB_URI   MongoDB connection string (required)
  MONGODB_DB    database name [default: meetings]
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let file: string | undefined;
  let help = false;
  try {
    const { values } = parseArgs({
      options: { file: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
      allowPositionals: false,
    });
    file = values.file;
    help = values.help ?? false;
  } catch (error) {
    fail(`${(error as Error).message}\n\n${usage}`);
  }
  if (help) {
    process.stdout.write(usage);
    return;
  }
  if (!file) fail(`--file is required.\n\n${usage}`);

  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    fail(`Cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  try {
    parseRecording(json); // problems are reported before any connection is made
  } catch (error) {
    if (error instanceof DomainError) fail(`${file}: ${error.message}`);
    throw error;
  }

  const uri = process.env.MONGODB_URI;
  if (!uri) fail('MONGODB_URI is not set: say which MongoDB to store into.');
  const database = await connectDatabase(uri, process.env.MONGODB_DB || 'meetings');
  try {
    const stored = await ingestRecording(database.collections, json);
    const state = stored.becameReady
      ? `content ready, ${stored.eventsQueued} webhook event(s) queued`
      : stored.meeting.contentReadyAt
        ? 'updated (its content was ready before: nothing fires)'
        : 'stored without a summary (content not ready yet)';
    process.stdout.write(`Stored recording ${stored.meeting.recordingId}: ${state}\n`);
  } catch (error) {
    if (error instanceof DomainError) fail(`${file}: ${error.message}`);
    throw error;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) =>
  fail(redactCredentials(`Ingestion failed: ${error instanceof Error ? error.message : String(error)}`), 1),
);
