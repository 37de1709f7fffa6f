/**
 * The media scenario (issue 16): a recording's 200 MB video streamed to 5 clients at once through
 * a download's signed link, measuring how much the service process grows while it streams (its
 * RSS sampled every 50 ms, against its RSS just before, after a warm-up stream). The file is stored through the service's
 * own MediaStore on the bench's engine (the engine holds it, not the service); each client reads
 * the whole file and checks its SHA-256.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { connectDatabase } from '../src/db/connection.js';
import { storeMedia } from '../src/domain/media.js';
import { rssOf, sampleRss } from './ipc.js';

export interface MediaResult {
  fileMb: number;
  clients: number;
  /** RSS of the service before the streams began, and its peak growth while they ran. */
  rssBeforeMb: number;
  rssGrowthMb: number;
  seconds: number;
  /** All clients together. */
  mbPerSecond: number;
  /** Clients whose bytes did not match. */
  mismatches: number;
}

const MB = 1024 * 1024;

/** `mb` megabytes, each block of 1 MB different (its index written into it), made as they are read. */
async function* fileOf(mb: number): AsyncGenerator<Uint8Array> {
  const block = Buffer.alloc(MB);
  for (let i = 0; i < MB; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  for (let n = 0; n < mb; n++) {
    const copy = Buffer.from(block);
    copy.writeUInt32LE(n, 0);
    yield copy;
  }
}

async function digestOf(bytes: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of bytes) hash.update(chunk);
  return hash.digest('hex');
}

export async function runMediaScenario(options: {
  serviceUrl: string;
  servicePid: number;
  engineUri: string;
  db: string;
  apiKey: string;
  recordingId: number;
  fileMb?: number;
  clients?: number;
}): Promise<{ result: MediaResult; problems: string[] }> {
  const fileMb = options.fileMb ?? 200;
  const clients = options.clients ?? 5;
  const problems: string[] = [];
  const database = await connectDatabase(options.engineUri, options.db);
  try {
    await storeMedia(database.collections, database.media, options.recordingId, {
      contentType: 'video/mp4',
      open: () => fileOf(fileMb),
    });
  } finally {
    await database.close();
  }
  const expected = await digestOf(fileOf(fileMb));
  const made = await fetch(`${options.serviceUrl}/external/v1/recordings/${options.recordingId}/download`, {
    method: 'POST',
    headers: { 'x-api-key': options.apiKey, 'content-type': 'application/json' },
    body: '{}',
  });
  const download = (await made.json()) as { video?: { url: string } };
  if (made.status !== 202 || !download.video)
    throw new Error(`POST download answered ${made.status}: ${JSON.stringify(download)}`);
  // A warm-up: the file streamed once to one client. What a process grows once, whatever it then
  // serves (its code compiled, V8's young generation sized for this rate of allocation: tens of
  // MB), is not what streaming costs; in a full run the scenarios before it have done the same.
  const warmUp = await fetch(download.video.url);
  if (warmUp.body) await digestOf(Readable.fromWeb(warmUp.body as import('node:stream/web').ReadableStream));
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const before = rssOf(options.servicePid) ?? 0;
  const stop = sampleRss([options.servicePid], 50);
  const started = performance.now();
  const digests = await Promise.all(
    Array.from({ length: clients }, async () => {
      const res = await fetch(download.video!.url);
      if (res.status !== 200 || !res.body) return `status ${res.status}`;
      return digestOf(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const [peak] = stop();
  const mismatches = digests.filter((d) => d !== expected).length;
  if (mismatches > 0) problems.push(`media: ${mismatches} of ${clients} clients got other bytes`);
  return {
    result: {
      fileMb,
      clients,
      rssBeforeMb: before / MB,
      rssGrowthMb: Math.max(0, (peak ?? 0) - before) / MB,
      seconds,
      mbPerSecond: (fileMb * clients) / seconds,
      mismatches,
    },
    problems,
  };
}
