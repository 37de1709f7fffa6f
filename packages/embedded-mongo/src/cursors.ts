// Server-side cursors: materialised result lists handed out in batches (firstBatch / nextBatch).
import { BSON, Long } from 'bson';
import { CommandError, ErrorCode } from './errors.js';
import type { Document } from './values.js';
import { MAX_BSON_OBJECT_SIZE } from './wire.js';

/** mongod's default first batch size when the client does not give one. */
export const DEFAULT_FIRST_BATCH = 101;
/** Leave room for the reply envelope around the batch. */
const MAX_BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 16 * 1024;
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;
const SWEEP_INTERVAL_MS = 60 * 1000;

interface OpenCursor {
  id: Long;
  ns: string;
  docs: Document[];
  position: number;
  transform: ((doc: Document) => Document) | undefined;
  lastUsed: number;
  noTimeout: boolean;
}

export interface CursorOptions {
  batchSize?: number | undefined;
  singleBatch?: boolean | undefined;
  transform?: ((doc: Document) => Document) | undefined;
  noCursorTimeout?: boolean | undefined;
}

export interface Batch {
  id: Long;
  ns: string;
  batch: Document[];
}

function idKey(id: unknown): string {
  if (typeof id === 'number' || typeof id === 'bigint') return String(id);
  if (Long.isLong(id)) return id.toString();
  throw new CommandError(ErrorCode.TypeMismatch, "Field 'getMore' must be of type long");
}

export class CursorManager {
  private readonly cursors = new Map<string, OpenCursor>();
  private nextId = 1 + Math.floor(Math.random() * 1_000_000);
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.timer = setInterval(() => this.sweep(Date.now()), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  get openCount(): number {
    return this.cursors.size;
  }

  /**
   * Takes the first batch from `docs`. When documents remain (and singleBatch is not set) a cursor
   * is registered and its id returned; otherwise the id is 0.
   */
  open(ns: string, docs: Document[], options: CursorOptions = {}): Batch {
    const cursor: OpenCursor = {
      id: Long.ZERO,
      ns,
      docs,
      position: 0,
      transform: options.transform,
      lastUsed: Date.now(),
      noTimeout: options.noCursorTimeout === true,
    };
    const size = options.batchSize === undefined ? DEFAULT_FIRST_BATCH : options.batchSize;
    const batch = takeBatch(cursor, size);
    if (options.singleBatch || cursor.position >= docs.length) return { id: Long.ZERO, ns, batch };
    cursor.id = Long.fromNumber(this.nextId);
    this.nextId += 1 + Math.floor(Math.random() * 1000);
    this.cursors.set(cursor.id.toString(), cursor);
    return { id: cursor.id, ns, batch };
  }

  getMore(rawId: unknown, ns: string, batchSize: number | undefined): Batch {
    const key = idKey(rawId);
    const cursor = this.cursors.get(key);
    if (!cursor) throw new CommandError(ErrorCode.CursorNotFound, `cursor id ${key} not found`);
    if (cursor.ns !== ns) {
      throw new CommandError(
        ErrorCode.Unauthorized,
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    cursor.lastUsed = Date.now();
    const batch = takeBatch(
      cursor,
      batchSize === undefined || batchSize <= 0 ? Number.POSITIVE_INFINITY : batchSize,
    );
    if (cursor.position >= cursor.docs.length) {
      this.cursors.delete(key);
      return { id: Long.ZERO, ns, batch };
    }
    return { id: cursor.id, ns, batch };
  }

  /** Kills a cursor; returns false when it did not exist. */
  kill(rawId: unknown): boolean {
    return this.cursors.delete(idKey(rawId));
  }

  sweep(now: number): void {
    for (const [key, cursor] of this.cursors) {
      if (!cursor.noTimeout && now - cursor.lastUsed > IDLE_TIMEOUT_MS) this.cursors.delete(key);
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.cursors.clear();
  }
}

function takeBatch(cursor: OpenCursor, size: number): Document[] {
  const batch: Document[] = [];
  let bytes = 0;
  while (cursor.position < cursor.docs.length && batch.length < size) {
    const raw = cursor.docs[cursor.position]!;
    const doc = cursor.transform ? cursor.transform(raw) : raw;
    const docBytes = BSON.calculateObjectSize(doc, { ignoreUndefined: true });
    if (batch.length > 0 && bytes + docBytes > MAX_BATCH_BYTES) break;
    batch.push(doc);
    bytes += docBytes;
    cursor.position++;
  }
  return batch;
}
