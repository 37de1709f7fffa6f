// GridFS as the official driver's GridFSBucket uses it (the manual's "GridFS" page, the driver's
// GridFS spec): the bucket `media` keeps each file's description in `media.files` and its bytes in
// `media.chunks`, one document per chunk `{files_id, n, data}`. The bucket creates its two indexes
// on its first upload (and goes on without them if that fails, so they are checked here), reads a
// file back through a cursor on the chunks sorted by `n`, from the chunk holding a range's start.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  Binary,
  type CommandSucceededEvent,
  type Db,
  type Document,
  GridFSBucket,
  type GridFSBucketWriteStreamOptions,
  MongoClient,
  MongoRuntimeError,
  ObjectId,
} from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo } from '../../src/index.js';
import { connectTarget, rejection, type Target, winningStages } from './target.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** A small chunk size, so that a file of a few MB has hundreds of chunks. */
const CHUNK = 64 * KiB;

let target: Target;
/** A client of its own that records the getMores the tests cause (command monitoring). */
let watched: MongoClient;
let bucket: GridFSBucket;
const getMores: Document[] = [];

beforeAll(async () => {
  target = await connectTarget('gridfs');
  watched = new MongoClient(target.uri, { monitorCommands: true, serverSelectionTimeoutMS: 5000 });
  watched.on('commandSucceeded', (event: CommandSucceededEvent) => {
    if (event.commandName === 'getMore') getMores.push(event.reply as Document);
  });
  await watched.connect();
  bucket = new GridFSBucket(watched.db(target.db.databaseName), { bucketName: 'media' });
});

afterAll(async () => {
  await watched?.close();
  await target?.close();
});

const files = () => target.db.collection('media.files');
const chunks = () => target.db.collection('media.chunks');

/** `bytes` as a stream of pieces that do not line up with chunks, as a file read from disk comes. */
function source(bytes: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 100_000) yield bytes.subarray(at, at + 100_000);
    })(),
  );
}

async function upload(
  into: GridFSBucket,
  filename: string,
  bytes: Buffer,
  options: GridFSBucketWriteStreamOptions = {},
): Promise<ObjectId> {
  const stream = into.openUploadStream(filename, { chunkSizeBytes: CHUNK, ...options });
  await pipeline(source(bytes), stream);
  return stream.id;
}

async function read(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** What `run` gives, and the replies to the getMores it sent. */
async function withGetMores<T>(run: () => Promise<T>): Promise<[T, Document[]]> {
  getMores.length = 0;
  const result = await run();
  return [result, getMores.splice(0)];
}

describe('uploading', () => {
  it('the first upload creates the bucket indexes; the files document describes the file, the chunks hold it', async () => {
    const bytes = randomBytes(3 * CHUNK + 1234);
    const before = Date.now();
    const id = await upload(bucket, 'intro.mp4', bytes, {
      metadata: { recordingId: 1, kind: 'video' },
    });
    const after = Date.now();

    const byName = (a: Document, b: Document) => String(a.name).localeCompare(String(b.name));
    expect((await files().listIndexes().toArray()).sort(byName)).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { filename: 1, uploadDate: 1 }, name: 'filename_1_uploadDate_1' },
    ]);
    expect((await chunks().listIndexes().toArray()).sort(byName)).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true },
    ]);

    const file = await files().findOne({ _id: id });
    expect(Object.keys(file!)).toEqual(['_id', 'length', 'chunkSize', 'uploadDate', 'filename', 'metadata']);
    expect(file).toMatchObject({
      _id: id,
      length: bytes.length,
      chunkSize: CHUNK,
      filename: 'intro.mp4',
      metadata: { recordingId: 1, kind: 'video' },
    });
    expect(file!.uploadDate).toBeInstanceOf(Date);
    expect(file!.uploadDate.getTime()).toBeGreaterThanOrEqual(before);
    expect(file!.uploadDate.getTime()).toBeLessThanOrEqual(after);

    const stored = await chunks().find({ files_id: id }).sort({ n: 1 }).toArray();
    expect(stored.map((c) => c.n)).toEqual([0, 1, 2, 3]);
    for (const chunk of stored) {
      expect(Object.keys(chunk)).toEqual(['_id', 'files_id', 'n', 'data']);
      expect(chunk._id).toBeInstanceOf(ObjectId);
      expect(chunk.files_id).toEqual(id);
      expect(chunk.data).toBeInstanceOf(Binary);
      expect(chunk.data.sub_type).toBe(0);
      const start = chunk.n * CHUNK;
      expect(Buffer.from(chunk.data.buffer).equals(bytes.subarray(start, start + CHUNK))).toBe(true);
    }
    expect(stored[3]!.data.length()).toBe(1234);
  });

  it('a second upload with the same id fails with a duplicate key on the chunks index, leaving the first file whole', async () => {
    const id = new ObjectId();
    const first = randomBytes(CHUNK + 10);
    await pipeline(source(first), bucket.openUploadStreamWithId(id, 'take-1.wav', { chunkSizeBytes: CHUNK }));
    const again = bucket.openUploadStreamWithId(id, 'take-2.wav', { chunkSizeBytes: CHUNK });
    const err = await rejection(pipeline(source(randomBytes(500)), again));
    expect(err.code).toBe(11000);
    expect(err.message).toMatch(
      /E11000 duplicate key error collection: .*media\.chunks index: files_id_1_n_1/,
    );
    expect(err.keyPattern).toEqual({ files_id: 1, n: 1 });
    expect(err.keyValue).toEqual({ files_id: id, n: 0 });
    expect(await files().find({ _id: id }).toArray()).toEqual([
      expect.objectContaining({ filename: 'take-1.wav' }),
    ]);
    expect((await read(bucket.openDownloadStream(id))).equals(first)).toBe(true);
  });

  it('when the first file with an id is empty (no chunks), the files _id index refuses the second', async () => {
    const id = new ObjectId();
    await pipeline(source(Buffer.alloc(0)), bucket.openUploadStreamWithId(id, 'empty.wav'));
    const err = await rejection(
      pipeline(source(randomBytes(100)), bucket.openUploadStreamWithId(id, 'full.wav')),
    );
    expect(err.code).toBe(11000);
    expect(err.message).toMatch(/media\.files index: _id_ dup key/);
    expect(await files().findOne({ _id: id })).toMatchObject({ filename: 'empty.wav', length: 0 });
  });
});

describe('downloading', () => {
  // 24 MiB in 64 KiB chunks: 385 chunks, more than the first batch (101) and one getMore (16 MB) hold.
  const bytes = randomBytes(24 * MiB + 4321);
  let id: ObjectId;

  beforeAll(async () => {
    id = await upload(bucket, 'meeting.webm', bytes, { metadata: { recordingId: 8 } });
  });

  it('a multi-chunk file comes back byte for byte, through several getMores', async () => {
    const [copy, replies] = await withGetMores(() => read(bucket.openDownloadStream(id)));
    expect(copy.length).toBe(bytes.length);
    expect(copy.equals(bytes)).toBe(true);
    expect(replies.length).toBeGreaterThanOrEqual(2);
    expect(replies.at(-1)!.cursor.id).toEqual(0);
  });

  it('a range [start, end) comes back exactly: inside a chunk, across chunks, at the very end', async () => {
    const ranges: Array<[number, number]> = [
      [5 * CHUNK + 100, 5 * CHUNK + 5000], // inside one chunk
      [CHUNK - 10, 4 * CHUNK + 7], // across four chunk boundaries
      [7 * CHUNK, 9 * CHUNK], // on chunk boundaries
      [0, 1],
      [bytes.length - 70_000, bytes.length], // the end, from the chunk before the last
      [bytes.length - 1, bytes.length],
      [bytes.length, bytes.length], // empty, at the end
      [1000, 1000], // empty, inside
    ];
    for (const [start, end] of ranges) {
      const part = await read(bucket.openDownloadStream(id, { start, end }));
      expect({ start, end, length: part.length }).toEqual({ start, end, length: end - start });
      expect(part.equals(bytes.subarray(start, end))).toBe(true);
    }
  });

  it('a zero-length file has no chunks and reads as nothing, whole or as a range', async () => {
    const empty = await upload(bucket, 'silence.wav', Buffer.alloc(0));
    expect(await files().findOne({ _id: empty })).toMatchObject({ length: 0, chunkSize: CHUNK });
    expect(await chunks().countDocuments({ files_id: empty })).toBe(0);
    expect((await read(bucket.openDownloadStream(empty))).length).toBe(0);
    expect((await read(bucket.openDownloadStream(empty, { start: 0, end: 0 }))).length).toBe(0);
  });

  it('a missing id fails with FileNotFound', async () => {
    const missing = new ObjectId();
    const err = await read(bucket.openDownloadStream(missing)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoRuntimeError);
    expect((err as MongoRuntimeError).message).toBe(`FileNotFound: file ${missing} was not found`);
    expect((err as MongoRuntimeError).code).toBe('ENOENT');
  });

  it('chunks read by hand come in order of n, four per batch, from the files_id_1_n_1 index', async () => {
    const [a, b] = [10, 29];
    const query = (db: Db) =>
      db
        .collection('media.chunks')
        .find({ files_id: id, n: { $gte: a, $lte: b } })
        .sort({ n: 1 })
        .batchSize(4);

    const [walked, replies] = await withGetMores(() => query(watched.db(target.db.databaseName)).toArray());
    expect(walked.map((c) => c.n)).toEqual(Array.from({ length: b - a + 1 }, (_, i) => a + i));
    const data = Buffer.concat(walked.map((c) => Buffer.from((c.data as Binary).buffer)));
    expect(data.equals(bytes.subarray(a * CHUNK, (b + 1) * CHUNK))).toBe(true);
    // 20 chunks, 4 in the first batch: at least four getMores, none bringing more than four.
    expect(replies.length).toBeGreaterThanOrEqual(4);
    for (const reply of replies) expect(reply.cursor.nextBatch.length).toBeLessThanOrEqual(4);

    const stages = await winningStages(query(target.db));
    const names = stages.map((s) => s.stage);
    expect(names).not.toContain('COLLSCAN');
    expect(names).not.toContain('SORT'); // the index gives the order of n
    const scan = stages.find((s) => s.stage === 'IXSCAN')!;
    expect(scan.indexName).toBe('files_id_1_n_1');
    expect(scan.direction).toBe('forward');
    expect(scan.indexBounds).toEqual({
      files_id: [`[ObjectId('${id.toHexString()}'), ObjectId('${id.toHexString()}')]`],
      n: [`[${a}, ${b}]`], // from chunk a, not from the file's first chunk
    });
    const { executionStats } = await query(target.db).explain('executionStats');
    expect(executionStats).toMatchObject({ nReturned: b - a + 1, totalDocsExamined: b - a + 1 });
  });
});

describe('finding, renaming and deleting files', () => {
  it('bucket.find by a metadata field, served by an index on it', async () => {
    const seven = await Promise.all([
      upload(bucket, 'r7-audio.m4a', randomBytes(1000), { metadata: { recordingId: 7, kind: 'audio' } }),
      upload(bucket, 'r7-video.mp4', randomBytes(2000), { metadata: { recordingId: 7, kind: 'video' } }),
    ]);
    await upload(bucket, 'r9-audio.m4a', randomBytes(1000), { metadata: { recordingId: 9 } });
    await files().createIndex({ 'metadata.recordingId': 1 });

    const found = await bucket.find({ 'metadata.recordingId': 7 }).sort({ filename: 1 }).toArray();
    expect(found.map((f) => f.filename)).toEqual(['r7-audio.m4a', 'r7-video.mp4']);
    expect(found.map((f) => f._id)).toEqual(seven);

    const stages = await winningStages(bucket.find({ 'metadata.recordingId': 7 }));
    expect(stages.map((s) => s.stage)).not.toContain('COLLSCAN');
    const scan = stages.find((s) => s.stage === 'IXSCAN')!;
    expect(scan.indexName).toBe('metadata.recordingId_1');
    expect(scan.indexBounds).toEqual({ 'metadata.recordingId': ['[7, 7]'] });
  });

  it('rename changes the filename that finds the file and opens it by name', async () => {
    const bytes = randomBytes(2 * CHUNK + 5);
    const id = await upload(bucket, 'draft.mp4', bytes);
    await bucket.rename(id, 'final.mp4');
    expect(await bucket.find({ filename: 'draft.mp4' }).toArray()).toEqual([]);
    expect(await bucket.find({ filename: 'final.mp4' }).toArray()).toEqual([
      expect.objectContaining({ _id: id, filename: 'final.mp4', length: bytes.length }),
    ]);
    expect((await read(bucket.openDownloadStreamByName('final.mp4'))).equals(bytes)).toBe(true);
    await expect(bucket.rename(new ObjectId(), 'nothing.mp4')).rejects.toThrow(/File with id .* not found/);
  });

  it('delete removes the files document and every chunk', async () => {
    const id = await upload(bucket, 'to-delete.mp4', randomBytes(5 * CHUNK + 1));
    const kept = await upload(bucket, 'kept.mp4', randomBytes(CHUNK + 1));
    expect(await chunks().countDocuments({ files_id: id })).toBe(6);
    await bucket.delete(id);
    expect(await files().findOne({ _id: id })).toBeNull();
    expect(await chunks().countDocuments({ files_id: id })).toBe(0);
    expect(await chunks().countDocuments({ files_id: kept })).toBe(2);
    await expect(read(bucket.openDownloadStream(id))).rejects.toThrow(/FileNotFound/);
    await expect(bucket.delete(id)).rejects.toThrow(`File not found for id ${id}`);
  });
});

describe('a durable embedded engine', () => {
  it('keeps a GridFS file, byte for byte, across a restart', async () => {
    if (!target.embedded) return; // a real server is not ours to restart
    const dir = mkdtempSync(path.join(tmpdir(), 'gridfs-'));
    try {
      const bytes = randomBytes(3 * MiB + 17);
      let id: ObjectId;
      {
        const engine = await startEmbeddedMongo({ path: dir });
        const client = await new MongoClient(engine.uri).connect();
        id = await upload(new GridFSBucket(client.db('app'), { bucketName: 'media' }), 'kept.webm', bytes, {
          metadata: { recordingId: 3 },
        });
        await client.close();
        await engine.close();
      }
      const engine = await startEmbeddedMongo({ path: dir });
      const client = await new MongoClient(engine.uri).connect();
      try {
        const db = client.db('app');
        const again = new GridFSBucket(db, { bucketName: 'media' });
        expect(await again.find({ _id: id }).toArray()).toEqual([
          expect.objectContaining({
            filename: 'kept.webm',
            length: bytes.length,
            metadata: { recordingId: 3 },
          }),
        ]);
        expect((await read(again.openDownloadStream(id))).equals(bytes)).toBe(true);
        const part = await read(again.openDownloadStream(id, { start: CHUNK - 3, end: 2 * CHUNK + 3 }));
        expect(part.equals(bytes.subarray(CHUNK - 3, 2 * CHUNK + 3))).toBe(true);
        const indexes = await db.collection('media.chunks').listIndexes().toArray();
        expect(indexes.map((i) => i.name)).toContain('files_id_1_n_1');
      } finally {
        await client.close();
        await engine.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
