// A text index's entries, kept in the store's `text` database (persistence.ts) rather than in the
// heap: for each record, its terms with their scores (what a search looks up), where its words
// stand if its text is plain (what a phrase looks up: text-positions.ts), or that it is not plain;
// and the words the index has seen, for phrases that start or end inside a word. Keys begin with
// the index's storage id, a name of its own written in the collection's catalog entry, so a
// dropped and recreated index never reads the entries of the one before.
//
// As for documents (records.ts), a command's changes are not put in LMDB here: they wait in memory,
// where every read looks first, until the store writes them in its next commit (takeUnsaved) and
// that commit is done (settle). Records changed and not yet settled are read from memory alone.
import { createHash } from 'node:crypto';
import type { Database } from 'lmdb';
import type { CachePartition, DocumentCache } from './document-cache.js';
import {
  type DecodedPositions,
  decodePositions,
  type EncodedPositions,
  type PositionSource,
  type RecordWords,
  WordPositions,
} from './text-positions.js';

/** [storage id, kind, term or word, record id], or [storage id, WORD_SEEN, word]. */
type TextKey = [string, number, string, number] | [string, number, string];
export type TextDatabase = Database<Uint8Array, TextKey>;

const TERM = 0;
const POSITIONS = 1;
const NOT_PLAIN = 2;
const WORD_SEEN = 3;
const LAST_RECORD = Number.MAX_SAFE_INTEGER;
/**
 * LMDB refuses keys over about 2 KB: a term longer than this many bytes (a run of text with no
 * space, a pasted blob) is keyed by its start and a digest of it, which a search computes alike.
 * Words that long are not kept with positions at all (text-positions.ts).
 */
const LONGEST_KEY_TEXT = 512;
const PRESENT = new Uint8Array([1]);
/** A build writes its entries this many at a time (some 20 MB), rather than all at the command's end. */
const BUILD_WRITES_AT_ONCE = 200_000;

/** A term's postings as LMDB holds them: record ids and their scores, in record-id order. */
interface Postings {
  seqs: Float64Array;
  scores: Float64Array;
}

/** A word's positions as LMDB holds them: record ids and their positions there, decoded. */
interface WordRecords {
  seqs: Float64Array;
  positions: DecodedPositions[];
}

/** What a text index holds for one record. */
export interface TextRecord {
  scores: Map<string, number>;
  /** Where its words stand; undefined when its text is not plain. */
  words: RecordWords | undefined;
}

/** A write of the store's next commit: a put, or a removal when the value is undefined. */
export type TextWrite = readonly [key: TextKey, value: Uint8Array | undefined];

interface Pending {
  /** What LMDB holds for the record once the commits already taken are done. */
  stored: TextRecord | null;
  /** What the record is now. */
  current: TextRecord | null;
  /** Changed since the store last took the changes. */
  unsaved: boolean;
}

/**
 * A term as its key names it: itself, or when too long its start and a digest, apart by a space,
 * which no term holds.
 */
function termKey(term: string): string {
  if (term.length * 3 <= LONGEST_KEY_TEXT || Buffer.byteLength(term) <= LONGEST_KEY_TEXT) return term;
  return `${term.slice(0, 64)} ${createHash('sha256').update(term).digest('base64url')}`;
}

export class TextStore implements PositionSource {
  private readonly pending = new Map<number, Pending>();
  // The current version of each pending record, by term and by word.
  private readonly terms = new Map<string, Map<number, number>>();
  private readonly positionsInMemory = new WordPositions();
  private readonly notPlainHeld = new Set<number>();
  /**
   * What searches read from LMDB, in the engine's cache (document-cache.ts): each term's postings and
   * each word's positions, for the next searches of the same words (a result's next pages, a common
   * word). A commit that changes a word's entries drops what was read of it once it is done.
   */
  private readonly postingsRead: CachePartition<Postings, string>;
  private readonly positionsRead: CachePartition<WordRecords, string>;
  /** Words with entries in LMDB (loaded when first needed); never shrinks, which costs nothing. */
  private wordsSeen: Set<string> | undefined;
  /** Cleared (truncated) in this command: LMDB's entries are gone once the next commit is done. */
  private clearing: TextWrite[] | undefined;
  /** Clears taken into a commit not done yet: until then LMDB's entries are not read. */
  private clearsInFlight = 0;
  /** A build's entries not written yet (see `build`). */
  private built: TextWrite[] | undefined;
  private buildWrites: Promise<void>[] = [];

  constructor(
    private readonly db: TextDatabase,
    readonly storageId: string,
    cache: DocumentCache,
  ) {
    this.postingsRead = cache.partition();
    this.positionsRead = cache.partition();
  }

  private get storedIgnored(): boolean {
    return this.clearing !== undefined || this.clearsInFlight > 0;
  }

  /**
   * Builds the index over a collection's documents, `fill` adding each. The entries are written as
   * they come, in batches of their own, not held: the storage id is in no catalog entry until the
   * command's commit, which waits for them, and nothing reads the index before. A build cut short
   * leaves entries no index names, removed on the next open.
   */
  build(fill: () => void): void {
    this.built = [];
    try {
      fill();
      this.writeBuilt();
    } finally {
      this.built = undefined;
    }
  }

  add(seq: number, record: TextRecord): void {
    if (this.built) {
      for (const write of this.writes(seq, record, true)) this.built.push(write);
      if (this.built.length >= BUILD_WRITES_AT_ONCE) this.writeBuilt();
      return;
    }
    const pending = this.pendingOf(seq, null);
    pending.current = record;
    pending.unsaved = true;
    this.hold(seq, record);
  }

  private forgetAllRead(): void {
    this.postingsRead.clear();
    this.positionsRead.clear();
  }

  private writeBuilt(): void {
    const writes = this.built!;
    if (writes.length === 0) return;
    this.built = [];
    const db = this.db;
    const batch = db.batch(() => {
      for (const [key, value] of writes) db.put(key, value!);
    });
    // A search in the meantime may have read (and kept) what LMDB held before the batch.
    this.buildWrites.push(batch.then(() => this.forgetAllRead()));
  }

  /** The record's entries go; `record` is what it held, as the index computes it from the old document. */
  remove(seq: number, record: TextRecord | null): void {
    const pending = this.pendingOf(seq, record);
    if (pending.current) this.release(seq, pending.current);
    pending.current = null;
    pending.unsaved = true;
  }

  /** Every record's entries go. */
  clear(): void {
    if (this.built) this.built = [];
    const removals: TextWrite[] = this.clearing ?? [];
    // What commits already taken will write is not in LMDB yet: removed by name.
    for (const [seq, { stored }] of this.pending)
      if (stored) removals.push(...this.writes(seq, stored, false));
    this.clearing = removals;
    this.pending.clear();
    this.terms.clear();
    this.positionsInMemory.clear();
    this.notPlainHeld.clear();
  }

  /** The records holding `term`, with their scores. */
  *scores(term: string): Generator<readonly [number, number]> {
    if (!this.storedIgnored) {
      const { seqs, scores } = this.storedPostings(term);
      for (let i = 0; i < seqs.length; i++) if (!this.pending.has(seqs[i]!)) yield [seqs[i]!, scores[i]!];
    }
    const held = this.terms.get(term);
    if (held) yield* held;
  }

  /** What LMDB holds for `term`, read again only once a commit changed it. */
  private storedPostings(term: string): Postings {
    const kept = this.postingsRead.get(term);
    if (kept) return kept;
    const seqs: number[] = [];
    const scores: number[] = [];
    for (const { key, value } of this.db.getRange(this.range(TERM, termKey(term)))) {
      seqs.push(key[3] as number);
      scores.push(new DataView(value.buffer, value.byteOffset, 8).getFloat64(0, true));
    }
    const postings = { seqs: Float64Array.from(seqs), scores: Float64Array.from(scores) };
    this.postingsRead.put(term, postings, 16 * seqs.length, false);
    return postings;
  }

  holdsTerm(term: string, seq: number): boolean {
    if (this.pending.has(seq) || this.storedIgnored) return this.terms.get(term)?.has(seq) ?? false;
    return this.db.doesExist([this.storageId, TERM, termKey(term), seq]);
  }

  /** The records whose text is not plain (their phrases are checked on the document): few, read at once. */
  notPlain(): Set<number> {
    const seqs = new Set<number>();
    if (!this.storedIgnored) {
      for (const key of this.db.getKeys(this.range(NOT_PLAIN, ''))) {
        const seq = key[3] as number;
        if (!this.pending.has(seq)) seqs.add(seq);
      }
    }
    for (const seq of this.notPlainHeld) seqs.add(seq);
    return seqs;
  }

  *words(): Generator<string> {
    yield* this.seen();
    for (const word of this.positionsInMemory.words()) if (!this.seen().has(word)) yield word;
  }

  *positions(word: string): Generator<readonly [number, EncodedPositions | DecodedPositions]> {
    if (!this.storedIgnored) {
      const { seqs, positions } = this.storedPositions(word);
      for (let i = 0; i < seqs.length; i++) if (!this.pending.has(seqs[i]!)) yield [seqs[i]!, positions[i]!];
    }
    yield* this.positionsInMemory.positions(word);
  }

  /** What LMDB holds for `word`, read again only once a commit changed it. */
  private storedPositions(word: string): WordRecords {
    const kept = this.positionsRead.get(word);
    if (kept) return kept;
    const seqs: number[] = [];
    const positions: DecodedPositions[] = [];
    let bytes = 0;
    for (const { key, value } of this.db.getRange(this.range(POSITIONS, word))) {
      seqs.push(key[3] as number);
      const decoded = decodePositions(value);
      positions.push(decoded);
      bytes += decoded.byteLength + 96; // with the typed array's own object
    }
    const records = { seqs: Float64Array.from(seqs), positions };
    this.positionsRead.put(word, records, bytes, false);
    return records;
  }

  /**
   * The changes since the last call, for the store's next commit, and what to call once it is done;
   * `written`: batches a build wrote since (the commit must wait for them, in memory too).
   */
  takeUnsaved(): { writes: TextWrite[]; settle: () => void; written: Promise<void>[] } {
    const writes: TextWrite[] = [];
    const cleared = this.clearing !== undefined;
    if (cleared) {
      for (const write of TextStore.removals(this.db, this.storageId)) writes.push(write);
      for (const write of this.clearing!) writes.push(write);
      this.clearing = undefined;
      this.clearsInFlight++;
    }
    const taken: [number, TextRecord | null][] = [];
    // Terms and words whose entries this commit changes: what was read of them is stale once it is done.
    const changedTerms = new Set<string>();
    const changedWords = new Set<string>();
    for (const [seq, pending] of this.pending) {
      if (!pending.unsaved) continue;
      for (const record of [pending.stored, pending.current]) {
        for (const term of record?.scores.keys() ?? []) changedTerms.add(term);
        for (const word of record?.words?.keys() ?? []) changedWords.add(word);
      }
      if (pending.stored) writes.push(...this.writes(seq, pending.stored, false));
      if (pending.current) writes.push(...this.writes(seq, pending.current, true));
      pending.stored = pending.current;
      pending.unsaved = false;
      taken.push([seq, pending.current]);
    }
    const settle = () => {
      if (cleared) {
        this.clearsInFlight--;
        this.forgetAllRead();
      }
      for (const term of changedTerms) this.postingsRead.evict(term);
      for (const word of changedWords) this.positionsRead.evict(word);
      for (const [seq, record] of taken) {
        const pending = this.pending.get(seq);
        if (!pending || pending.unsaved || pending.current !== record) continue;
        this.pending.delete(seq);
        if (record) this.release(seq, record);
      }
    };
    const written = this.buildWrites;
    this.buildWrites = [];
    return { writes, settle, written };
  }

  /** The index is dropped: removals of everything it has or will have in LMDB. */
  drop(): TextWrite[] {
    this.clear();
    const { writes, settle } = this.takeUnsaved();
    settle();
    return writes;
  }

  /** The storage ids that have entries in `db`. */
  static storageIds(db: TextDatabase): string[] {
    const ids: string[] = [];
    for (;;) {
      const after = ids.length === 0 ? undefined : [ids[ids.length - 1]!, WORD_SEEN + 1];
      const [key] = db.getKeys({ start: after as TextKey | undefined, limit: 1 });
      if (!key) return ids;
      ids.push(key[0]);
    }
  }

  /** Removals of everything `db` holds under `storageId`. */
  static removals(db: TextDatabase, storageId: string): TextWrite[] {
    const range = {
      start: [storageId] as unknown as TextKey,
      end: [storageId, WORD_SEEN + 1] as unknown as TextKey,
    };
    return [...db.getKeys(range)].map((key): TextWrite => [key, undefined]);
  }

  private pendingOf(seq: number, stored: TextRecord | null): Pending {
    let pending = this.pending.get(seq);
    if (!pending) {
      // Not pending: LMDB holds what the caller says the record held.
      pending = { stored: this.storedIgnored ? null : stored, current: null, unsaved: false };
      this.pending.set(seq, pending);
    }
    return pending;
  }

  /** Puts (or removals) of a record's entries. */
  private writes(seq: number, record: TextRecord, put: boolean): TextWrite[] {
    const id = this.storageId;
    const writes: TextWrite[] = [];
    for (const [term, score] of record.scores) {
      let value: Uint8Array | undefined;
      if (put) {
        value = new Uint8Array(8);
        new DataView(value.buffer).setFloat64(0, score, true);
      }
      writes.push([[id, TERM, termKey(term), seq], value]);
    }
    if (record.words) {
      const seen = put ? this.seen() : undefined;
      for (const [word, positions] of record.words) {
        writes.push([[id, POSITIONS, word, seq], put ? positions : undefined]);
        if (seen && !seen.has(word)) {
          seen.add(word);
          writes.push([[id, WORD_SEEN, word], PRESENT]);
        }
      }
    } else writes.push([[id, NOT_PLAIN, '', seq], put ? PRESENT : undefined]);
    return writes;
  }

  private seen(): Set<string> {
    if (!this.wordsSeen) {
      this.wordsSeen = new Set();
      const range = { start: [this.storageId, WORD_SEEN], end: [this.storageId, WORD_SEEN + 1] };
      for (const key of this.db.getKeys(range)) this.wordsSeen.add(key[2] as string);
    }
    return this.wordsSeen;
  }

  private range(kind: number, text: string) {
    return { start: [this.storageId, kind, text, 0], end: [this.storageId, kind, text, LAST_RECORD] };
  }

  private hold(seq: number, record: TextRecord): void {
    for (const [term, score] of record.scores) {
      let held = this.terms.get(term);
      if (!held) {
        held = new Map();
        this.terms.set(term, held);
      }
      held.set(seq, score);
    }
    if (record.words) this.positionsInMemory.add(seq, record.words);
    else this.notPlainHeld.add(seq);
  }

  private release(seq: number, record: TextRecord): void {
    for (const term of record.scores.keys()) {
      const held = this.terms.get(term);
      held?.delete(seq);
      if (held?.size === 0) this.terms.delete(term);
    }
    if (record.words) this.positionsInMemory.remove(seq, record.words.keys());
    this.notPlainHeld.delete(seq);
  }
}
