// An ordered index's entries, kept in the store's `keys` database (persistence.ts) rather than in
// the heap, so a reopened store answers at once and memory does not grow with the data. An entry's
// LMDB key is the index's storage id (the name its catalog entry gives it, 8 bytes), the key values
// as bytes in BSON order (key-string.ts, each field in its direction), then the record id (8 bytes,
// big-endian): LMDB's byte order is the index's order, and a range scan is an LMDB range of keys
// alone (the value is empty). What a scan must give besides the record id (bounds on later fields,
// sort keys) is decoded from the key when asked (key-string.ts decodeKey).
//
// As for documents (records.ts), a command's changes wait in memory (an ordered overlay of entries
// added, or removed), where every read looks first, until the store writes them in its next commit
// (takeUnsaved) and that commit is done (settle). The overlay is ordered by the keys' bytes as
// latin1 strings (one character per byte, so the same order), which JavaScript compares fastest.
// Changes are put in order only when a read needs them: a bulk insert into a collection of many
// indexes writes most of them without a read in between, and then never orders them at all.
import type { Database } from 'lmdb';
import sortedBtree from 'sorted-btree';
import { CommandError, ErrorCode } from './errors.js';
import { decodeKey } from './key-string.js';

// sorted-btree is CommonJS: Node's ESM loader hands its `exports` object to a default import,
// vitest's the class itself.
const BTree = ('default' in sortedBtree ? sortedBtree.default : sortedBtree) as typeof sortedBtree.default;

export type KeysDatabase = Database<Uint8Array, Buffer>;

/** A write of the store's next commit: a put, or a removal when the value is undefined. */
export type KeyWrite = readonly [key: Buffer, value: Uint8Array | undefined];

/** Storage ids are 8 ASCII characters (records.ts newStorageId): an entry's first 8 bytes. */
const STORAGE_ID_BYTES = 8;
const SEQ_BYTES = 8;
/**
 * LMDB's longest key, as lmdb builds it. mongod has had no index key limit since 4.2; here a key
 * whose bytes pass this is refused with the error mongod gave before (KeyTooLong, 17280).
 */
const LONGEST_LMDB_KEY = 1978;
export const LONGEST_INDEX_KEY = LONGEST_LMDB_KEY - STORAGE_ID_BYTES - SEQ_BYTES;
/** Sorts after every byte a key can hold past a position (brackets stop at 245, record ids start at 0). */
const AFTER = 0xff;

const NO_VALUE = new Uint8Array(0);

/** One entry as a scan gives it: the record id, and the key values, decoded when first read. */
export class Entry {
  private decoded: unknown[] | undefined;

  constructor(
    readonly seq: number,
    /** Its LMDB key, which the values are decoded from. */
    private readonly key: Uint8Array,
    private readonly directions: readonly number[],
  ) {}

  get values(): unknown[] {
    this.decoded ??= decodeKey(this.key, STORAGE_ID_BYTES, this.directions);
    return this.decoded;
  }
}

interface Change {
  /** An entry added, or one removed. */
  readonly added: boolean;
  /** Its LMDB key, as the commit writes it. */
  readonly bytes: Buffer;
  /** The key as the overlay orders it, once it is there. */
  text?: string;
}

/** Bytes as a string of one character per byte: ordered as the bytes are. */
const asText = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');

/** The key-string bytes of a key too long for LMDB: refused as mongod 4.0 refused it. */
export function keyTooLong(indexName: string, bytes: number): CommandError {
  return new CommandError(
    ErrorCode.KeyTooLong,
    `key too large to index, failing: index ${indexName} would need ${bytes} bytes, the embedded engine keeps keys of up to ${LONGEST_INDEX_KEY}`,
  );
}

export class IndexStore {
  private readonly prefix: Buffer;
  /** LMDB key as text → the change of it not settled yet, for those a read has needed. */
  private readonly overlay = new BTree<string, Change>();
  /**
   * Changes since the last commit was taken, in the order made: a key changed twice is listed
   * twice, and the commit writes both in that order, so LMDB ends with the later.
   */
  private unsaved: Change[] = [];
  /** How many of `unsaved` the overlay holds (the first ones). */
  private unsavedOrdered = 0;
  /** Changes of commits in flight that the overlay does not hold (no read needed them), oldest first. */
  private readonly waiting: Change[][] = [];

  constructor(
    private readonly db: KeysDatabase,
    readonly storageId: string,
    /** Each key field's direction: how to decode a key. */
    private readonly directions: readonly number[],
  ) {
    this.prefix = Buffer.from(storageId, 'latin1');
    if (this.prefix.length !== STORAGE_ID_BYTES) throw new Error(`bad index storage id ${storageId}`);
  }

  /** The LMDB key of record `seq` under `key` (key-string bytes). */
  entryKey(key: Uint8Array, seq: number): Buffer {
    const bytes = Buffer.allocUnsafe(STORAGE_ID_BYTES + key.length + SEQ_BYTES);
    this.prefix.copy(bytes, 0);
    bytes.set(key, STORAGE_ID_BYTES);
    const at = STORAGE_ID_BYTES + key.length;
    bytes.writeUInt32BE(Math.floor(seq / 2 ** 32), at);
    bytes.writeUInt32BE(seq % 2 ** 32, at + 4);
    return bytes;
  }

  add(key: Uint8Array, seq: number): void {
    this.change(this.entryKey(key, seq), true);
  }

  remove(key: Uint8Array, seq: number): void {
    this.change(this.entryKey(key, seq), false);
  }

  /** The record ids held under `key` (key-string bytes), the overlay's and LMDB's merged. */
  *records(key: Uint8Array): Generator<number> {
    const low = Buffer.concat([this.prefix, key]);
    for (const entry of this.range(low, Buffer.concat([low, Buffer.of(AFTER)]), 1)) yield entry.seq;
  }

  /**
   * The entries between `low` and `high` (positions within a key: key-string bytes with no record
   * id, which no entry equals), in byte order (1) or reverse (-1). The overlay is read as it is when
   * the scan starts, and so is LMDB (a range holds its read snapshot), so a scan a cursor resumes
   * after later commands sees what was there when it started.
   */
  *scan(low: Uint8Array, high: Uint8Array, direction: 1 | -1): Generator<Entry> {
    const from = Buffer.concat([this.prefix, low]);
    const to = Buffer.concat([this.prefix, high]);
    yield* this.range(atMost(from), above(to), direction);
  }

  private *range(low: Buffer, high: Buffer, direction: 1 | -1): Generator<Entry> {
    this.order();
    const changed: Array<[string, Change]> = [];
    if (this.overlay.size > 0) {
      // `low` is never a key: every key is longer than its positions.
      const [from, to] = [asText(low), asText(high)];
      if (direction === 1) {
        for (const pair of this.overlay.entries(from)) {
          if (pair[0] >= to) break;
          changed.push(pair);
        }
      } else {
        for (const pair of this.overlay.entriesReversed(to)) {
          if (pair[0] <= from) break;
          changed.push(pair);
        }
      }
    }
    const stored =
      direction === 1
        ? this.db.getKeys({ start: low, end: high })
        : this.db.getKeys({ start: high, end: low, reverse: true });
    let next = 0;
    const fromOverlay = ([, change]: [string, Change]) =>
      change.added ? new Entry(seqOf(change.bytes), change.bytes, this.directions) : undefined;
    for (const key of stored) {
      if (next < changed.length) {
        const text = asText(key);
        for (; next < changed.length; next++) {
          const pending = changed[next]![0];
          if (direction === 1 ? pending >= text : pending <= text) break;
          const entry = fromOverlay(changed[next]!);
          if (entry) yield entry;
        }
        // Changed since LMDB's version: the overlay's comes instead.
        if (next < changed.length && changed[next]![0] === text) {
          const entry = fromOverlay(changed[next++]!);
          if (entry) yield entry;
          continue;
        }
      }
      yield new Entry(seqOf(key), key, this.directions);
    }
    for (; next < changed.length; next++) {
      const entry = fromOverlay(changed[next]!);
      if (entry) yield entry;
    }
  }

  /** The changes since the last call, for the store's next commit, and what to call once it is done. */
  takeUnsaved(): { writes: KeyWrite[]; settle: () => void } {
    const taken = this.unsaved;
    const ordered = this.unsavedOrdered;
    const unordered = ordered < taken.length ? taken.slice(ordered) : undefined;
    if (unordered) this.waiting.push(unordered);
    this.unsaved = [];
    this.unsavedOrdered = 0;
    const writes = taken.map((change): KeyWrite => [change.bytes, change.added ? NO_VALUE : undefined]);
    const settle = () => {
      // Changes no read needed leave as they came: the overlay never held them (they have no text).
      const unread = unordered ? this.waiting.indexOf(unordered) : -1;
      if (unread >= 0) this.waiting.splice(unread, 1);
      // A key changed again since stays: its change has not been written.
      for (const change of taken)
        if (change.text !== undefined && this.overlay.get(change.text) === change)
          this.overlay.delete(change.text);
    };
    return { writes, settle };
  }

  /** The index is gone: removals of everything it has or will have in LMDB. */
  drop(): KeyWrite[] {
    this.order();
    const writes = IndexStore.removals(this.db, this.storageId);
    const stored = new Set(writes.map(([key]) => asText(key)));
    for (const key of this.overlay.keys())
      if (!stored.has(key)) writes.push([Buffer.from(key, 'latin1'), undefined]);
    this.forget();
    return writes;
  }

  /** Forgets what this index holds: only for one not committed yet (a build that failed). */
  forget(): void {
    this.overlay.clear();
    this.unsaved = [];
    this.unsavedOrdered = 0;
    this.waiting.length = 0;
  }

  /** The storage ids that have entries in `db`. */
  static storageIds(db: KeysDatabase): string[] {
    const ids: string[] = [];
    let after: Buffer | undefined;
    for (;;) {
      const [key] = db.getKeys({ start: after, limit: 1 });
      if (!key) return ids;
      const id = Buffer.from(key.subarray(0, STORAGE_ID_BYTES));
      ids.push(id.toString('latin1'));
      after = Buffer.concat([id, Buffer.of(AFTER)]);
    }
  }

  /** Removals of everything `db` holds under `storageId`. */
  static removals(db: KeysDatabase, storageId: string): KeyWrite[] {
    const start = Buffer.from(storageId, 'latin1');
    const end = Buffer.concat([start, Buffer.of(AFTER)]);
    return [...db.getKeys({ start, end })].map((key): KeyWrite => [Buffer.from(key), undefined]);
  }

  private change(bytes: Buffer, added: boolean): void {
    this.unsaved.push({ added, bytes });
  }

  /** Puts in the overlay every change a read must see, oldest first, so the latest of a key wins. */
  private order(): void {
    const put = (change: Change) => {
      change.text = asText(change.bytes);
      this.overlay.set(change.text, change);
    };
    for (const run of this.waiting) for (const change of run) put(change);
    this.waiting.length = 0;
    for (let i = this.unsavedOrdered; i < this.unsaved.length; i++) put(this.unsaved[i]!);
    this.unsavedOrdered = this.unsaved.length;
  }
}

// A bound longer than LMDB's longest key (a query for a long string) is loosened to one it takes:
// no entry is longer, so none between the bounds is lost, and the few more a loosened bound lets in
// are checked against the filter with their documents, as every scanned entry is.

/** `bound`, or when too long its start: at or below it, and above no entry that is below it. */
function atMost(bound: Buffer): Buffer {
  return bound.length <= LONGEST_LMDB_KEY ? bound : bound.subarray(0, LONGEST_LMDB_KEY);
}

/** `bound`, or when too long the shortest bytes above it that LMDB takes. */
function above(bound: Buffer): Buffer {
  if (bound.length <= LONGEST_LMDB_KEY) return bound;
  let last = LONGEST_LMDB_KEY - 1;
  while (bound[last] === 0xff) last--;
  const raised = Buffer.from(bound.subarray(0, last + 1));
  raised[last]!++;
  return raised;
}

function seqOf(key: Uint8Array): number {
  const view = new DataView(key.buffer, key.byteOffset + key.length - SEQ_BYTES, SEQ_BYTES);
  return view.getUint32(0) * 2 ** 32 + view.getUint32(4);
}
