/**
 * Serialised content kept in the process, by version. Content is written once and read many
 * times, and a page of transcripts is megabytes: a reader asks the database only which version of
 * each document is current (a few bytes each) and fetches the bytes of the ones it does not hold.
 * A document's version is a digest of its bytes, written in the same update (storedContentOf), so
 * what is served is never older than what the database holds, whichever process wrote it.
 * Bounded by bytes; the least recently used go first.
 */
import { LRUCache } from 'lru-cache';
import type { ContentKind } from '../db/documents.js';
import type { Serialised } from './content.js';

interface Entry {
  version: string;
  content: Serialised;
}

export class ContentCache {
  private readonly entries: LRUCache<string, Entry>;

  /** `maxBytes`: what the kept bytes may add up to (a transcript is ~0.1–0.4 MB). */
  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.content.json.bytes.length),
    });
  }

  /** The content of `kind` for the recording, if it is the `version` held. */
  get<K extends ContentKind>(kind: K, recordingId: number, version: string): Serialised<K> | undefined {
    const entry = this.entries.get(`${kind}:${recordingId}`);
    return entry?.version === version ? (entry.content as Serialised<K>) : undefined;
  }

  set(kind: ContentKind, recordingId: number, version: string, content: Serialised): void {
    this.entries.set(`${kind}:${recordingId}`, { version, content });
  }

  /** The bytes held (for tests and metrics). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}
