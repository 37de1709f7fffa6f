/**
 * `npm run ingest -- --file F [--media M]`: stores one recording (JSON in the seed meeting format,
 * seeds/format.ts) in MONGODB_URI / MONGODB_DB through the same domain function as the
 * ingestRecording mutation and the seeder; storing one that exists updates it. `--delete ID`
 * deletes one, as the deleteRecording mutation does. When it makes the recording's content ready, the
 * matching webhook events are queued (any worker delivers them) and live subscribers of every
 * server process hear of it. With `--media`, the recording's video or audio file is streamed into
 * GridFS (the same file again changes nothing). Exit codes: 0 stored or deleted (or nothing to
 * delete), 1 unexpected failure, 2 bad usage or bad data.
 */
import { createReadStream } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { connectDatabase } from '../db/connection.js';
import { deleteRecording } from '../domain/deletion.js';
import { DomainError } from '../domain/errors.js';
import { ingestRecording } from '../domain/ingestion.js';
import { mediaKindOf } from '../domain/media.js';
import { parseRecording } from '../domain/recording-format.js';
import { configOrExit } from '../lifecycle.js';
import { redactCredentials } from '../redact.js';

const usage = `Usage: npm run ingest -- --file FILE [--media MEDIA [--media-type TYPE]]
       npm run ingest -- --delete RECORDING_ID

  --file FILE         a recording as JSON in the seed meeting format (seeds/format.ts); one
                      stored before is updated
  --delete ID         delete the recording with this id, its content, media and pending
                      deliveries (nothing to delete is no error)
  --media MEDIA       the recording's video or audio file, streamed into the database
  --media-type TYPE   its content type [default: by its extension, e.g. .mp4 is video/mp4]
  --help              show this help

Environment:
  MONGODB_URI   MongoDB connection string (required)
  MONGODB_DB    database name [default: meetings]
`;

/** Content types of the usual recording files, by extension. */
const mediaTypes: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.m4a': 'audio/mp4',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.flac': 'audio/flac',
};

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let file: string | undefined;
  let media: string | undefined;
  let mediaType: string | undefined;
  let deleted: string | undefined;
  let help = false;
  try {
    const { values } = parseArgs({
      options: {
        file: { type: 'string' },
        media: { type: 'string' },
        'media-type': { type: 'string' },
        delete: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    file = values.file;
    media = values.media;
    mediaType = values['media-type'];
    deleted = values.delete;
    help = values.help ?? false;
  } catch (error) {
    fail(`${(error as Error).message}\n\n${usage}`);
  }
  if (help) {
    process.stdout.write(usage);
    return;
  }
  if (deleted !== undefined) {
    if (file || media || mediaType) fail(`--delete goes alone.\n\n${usage}`);
    return remove(deleted);
  }
  if (!file) fail(`--file (or --delete) is required.\n\n${usage}`);

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

  if (media) {
    mediaType ??= mediaTypes[extname(media).toLowerCase()];
    if (!mediaType) fail(`Cannot tell the content type of ${media}: give --media-type (e.g. video/mp4).`);
    try {
      mediaKindOf(mediaType);
      await access(media);
    } catch (error) {
      fail(
        error instanceof DomainError ? error.message : `Cannot read ${media}: ${(error as Error).message}`,
      );
    }
  } else if (mediaType) fail(`--media-type goes with --media.\n\n${usage}`);

  const config = configOrExit(() => loadConfig(['database']));
  if (!config.MONGODB_URI) fail('MONGODB_URI is not set: say which MongoDB to store into.');
  // The driver's own timeouts, not MONGODB_TIMEOUT_MS: a recording's media streams in for long.
  const database = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB);
  try {
    const path = media;
    const source = path && mediaType ? { contentType: mediaType, open: () => createReadStream(path) } : null;
    const stored = await ingestRecording(
      database.collections,
      json,
      undefined,
      source ? { store: database.media, source } : undefined,
    );
    const state = stored.becameReady
      ? `content ready, ${stored.eventsQueued} webhook event(s) queued`
      : stored.meeting.contentReadyAt
        ? 'updated (its content was ready before: nothing fires)'
        : 'stored without a summary (content not ready yet)';
    const changes = stored.changes.length > 0 ? `changed: ${stored.changes.join(', ')}` : 'unchanged';
    process.stdout.write(`Stored recording ${stored.meeting.recordingId}: ${state}; ${changes}\n`);
    const file = stored.meeting.media;
    if (source && file)
      process.stdout.write(
        stored.mediaChanged
          ? `Stored its ${file.kind} (${file.contentType}, ${file.size} bytes)\n`
          : `Its ${file.kind} was stored already: unchanged\n`,
      );
  } catch (error) {
    if (error instanceof DomainError) fail(`${file}: ${error.message}`);
    throw error;
  } finally {
    await database.close();
  }
}

/** `--delete ID`: deletes one recording. */
async function remove(id: string): Promise<void> {
  const recordingId = Number(id);
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(recordingId) || recordingId < 1)
    fail(`--delete takes a recording id (a positive integer), not "${id}".`);
  const config = configOrExit(() => loadConfig(['database']));
  if (!config.MONGODB_URI) fail('MONGODB_URI is not set: say which MongoDB to delete from.');
  const database = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB);
  try {
    const done = await deleteRecording(database.collections, database.media, recordingId, new Date());
    process.stdout.write(
      done
        ? `Deleted recording ${recordingId}\n`
        : `Recording ${recordingId} is not there (never stored, or deleted already): nothing to delete\n`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) =>
  fail(redactCredentials(`Ingestion failed: ${error instanceof Error ? error.message : String(error)}`), 1),
);
