/**
 * When each API key or token was last used, without a write per request: the process notes when a
 * credential was presented and writes what it noted at most once every `intervalMs`
 * (LAST_USED_WRITE_MS), one bulk write
 * for all of them. `$max` keeps the latest time whichever process or late write comes last. What
 * is noted but not yet written when the process stops is written by `close`; in an outage it is
 * kept for the next write.
 */
import type { AnyBulkWriteOperation, ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { CredentialDoc } from '../db/documents.js';

export class CredentialUsage {
  private noted = new Map<string, { id: ObjectId; at: Date }>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly collections: Collections,
    private readonly intervalMs: number,
  ) {}

  /** The credential was presented now. */
  note(id: ObjectId, at: Date = new Date()): void {
    this.noted.set(id.toHexString(), { id, at });
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, this.intervalMs).unref();
  }

  /** Writes what was noted (one bulk write); resolves when it is stored, or kept after a failure. */
  async write(): Promise<void> {
    await this.writing;
    if (this.noted.size === 0) return;
    const batch = this.noted;
    this.noted = new Map();
    const operations: AnyBulkWriteOperation<CredentialDoc>[] = [...batch.values()].map(({ id, at }) => ({
      updateOne: { filter: { _id: id }, update: { $max: { lastUsedAt: at } } },
    }));
    this.writing = this.collections.credentials
      .bulkWrite(operations, { ordered: false })
      .then(
        () => {},
        () => {
          // The database is away: keep them (unless used again since) for the next write.
          for (const [key, use] of batch) if (!this.noted.has(key)) this.noted.set(key, use);
        },
      )
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }

  /** Writes what is left (a stopping process). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.write();
  }
}
