/**
 * Recordings' media files in GridFS (bucket `media`: collections `media.files` and `media.chunks`),
 * through the official driver. Files are written with its GridFSBucket. They are read by a cursor
 * of our own over the chunks of the byte range asked for, a few chunks a reply: the driver's
 * download stream asks for whole replies (up to 16 MiB each), so five clients watching a video
 * would hold 80 MiB; this way each holds about a megabyte, and reads only as fast as it sends.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Binary, type Collection, type Db, GridFSBucket, type ObjectId } from 'mongodb';

export const MEDIA_BUCKET = 'media';

/** A GridFS file document (the GridFS spec's fields; `metadata` is ours). */
export interface MediaFileDoc {
  _id: ObjectId;
  length: number;
  chunkSize: number;
  uploadDate: Date;
  filename: string;
  metadata?: { recordingId: number; contentType: string };
}

interface MediaChunkDoc {
  _id: ObjectId;
  files_id: ObjectId;
  n: number;
  data: Binary;
}

/** Chunks fetched per reply when reading: 4 × 255 KiB, about a megabyte in flight per reader. */
const CHUNKS_PER_REPLY = 4;

export class MediaStore {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<MediaFileDoc>;
  private readonly chunks: Collection<MediaChunkDoc>;

  constructor(db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: MEDIA_BUCKET });
    this.files = db.collection(`${MEDIA_BUCKET}.files`);
    this.chunks = db.collection(`${MEDIA_BUCKET}.chunks`);
  }

  /** The indexes GridFS makes on its first write, made at start so that reads before it use them too. */
  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.files.createIndex({ filename: 1, uploadDate: 1 }),
      this.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true }),
    ]);
  }

  /** Stores the bytes as a new file; resolves once every chunk and the file document are written. */
  async write(
    bytes: AsyncIterable<Uint8Array>,
    filename: string,
    metadata: NonNullable<MediaFileDoc['metadata']>,
  ): Promise<{ fileId: ObjectId; size: number }> {
    const upload = this.bucket.openUploadStream(filename, { metadata });
    await pipeline(Readable.from(bytes), upload);
    return { fileId: upload.id, size: upload.length };
  }

  /** The file document, or null when there is no such file (any more). */
  file(fileId: ObjectId): Promise<MediaFileDoc | null> {
    return this.files.findOne({ _id: fileId });
  }

  /**
   * Bytes `first` to `last` (inclusive) of `file`, read a few chunks at a time as the stream is
   * consumed. The stream fails if a chunk is missing (the file was removed while it was read).
   */
  read(file: MediaFileDoc, first: number, last: number): Readable {
    return Readable.from(this.slices(file, first, last), { objectMode: false });
  }

  private async *slices(file: MediaFileDoc, first: number, last: number): AsyncGenerator<Uint8Array> {
    const from = Math.floor(first / file.chunkSize);
    const to = Math.floor(last / file.chunkSize);
    const cursor = this.chunks
      .find({ files_id: file._id, n: { $gte: from, $lte: to } })
      .sort({ n: 1 })
      .batchSize(CHUNKS_PER_REPLY);
    try {
      let expected = from;
      for await (const chunk of cursor) {
        if (chunk.n !== expected) break;
        const bytes = chunk.data.buffer;
        const start = chunk.n === from ? first - from * file.chunkSize : 0;
        const end = chunk.n === to ? last - to * file.chunkSize + 1 : bytes.length;
        yield bytes.subarray(start, end);
        expected++;
      }
      if (expected !== to + 1) throw new Error(`media file ${file._id}: chunk ${expected} is missing`);
    } finally {
      await cursor.close();
    }
  }

  /** Removes a file and its chunks; a file already gone is no error. */
  async remove(fileId: ObjectId): Promise<void> {
    await this.files.deleteOne({ _id: fileId });
    await this.chunks.deleteMany({ files_id: fileId });
  }
}
