/**
 * What an ingested recording's names refer to: its recorder (by email), their organisation, its
 * meeting type and the teams it is shared with (by name). Every ingestion needs them; in a burst
 * the same few recur, and reading them for each recording was 3 to 4 of its 14 commands.
 *
 * The server keeps what it found for `ttlMs` (INGEST_CACHE_MS, 1 s by default): a recorder moved to
 * another organisation, or a team or meeting type renamed or removed, shows within it, as a revoked
 * key does (CREDENTIAL_CACHE_MS). What was not found is not kept: a user, team or meeting type made
 * a moment ago is found at once. Concurrent ingestions that need the same record share one read.
 * With `ttlMs` 0 (`npm run ingest`) every lookup reads the database; a dataset's load (seeds/load.ts)
 * keeps them for a minute, the names having been written by the load itself.
 *
 * The owners of the webhooks a ready meeting fans out to are kept the same way: an owner
 * deactivated within the second may still have an event queued, which the delivery worker
 * cancels when it checks the owner before sending.
 *
 * It also knows how far the recording id counter has been moved (it only grows, so that never goes
 * stale): an explicit id below that need not move it again (recordings.ts).
 */
import { LRUCache } from 'lru-cache';
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import {
  type MeetingTypeDoc,
  type OrganisationDoc,
  RECORDING_ID_COUNTER,
  type TeamDoc,
  type UserDoc,
} from '../db/documents.js';

type Read = () => Promise<object | null>;

/** Records kept at most (a few hundred bytes each). */
const MAX_KEPT = 10_000;

export class ReferenceCache {
  private readonly kept: LRUCache<string, object, Read> | undefined;
  /** The recording id counter is at least this. */
  private counterAtLeast = 0;

  constructor(
    private readonly collections: Collections,
    ttlMs: number,
  ) {
    if (ttlMs > 0)
      this.kept = new LRUCache<string, object, Read>({
        max: MAX_KEPT,
        ttl: ttlMs,
        // undefined is not kept: what was not found is looked for again next time.
        fetchMethod: async (_key, _stale, { context }) => (await context()) ?? undefined,
      });
  }

  recorder(email: string): Promise<UserDoc | null> {
    const address = email.toLowerCase();
    return this.lookup(`user ${address}`, () => this.collections.users.findOne({ email: address }));
  }

  organisation(id: ObjectId): Promise<OrganisationDoc | null> {
    return this.lookup(`organisation ${id}`, () => this.collections.organisations.findOne({ _id: id }));
  }

  meetingType(orgId: ObjectId, name: string): Promise<MeetingTypeDoc | null> {
    return this.lookup(`meetingType ${orgId} ${name}`, () =>
      this.collections.meetingTypes.findOne({ orgId, name }),
    );
  }

  team(orgId: ObjectId, name: string): Promise<TeamDoc | null> {
    return this.lookup(`team ${orgId} ${name}`, () => this.collections.teams.findOne({ orgId, name }));
  }

  /** Users by id, those not kept read in one query; any that do not exist are left out. */
  async users(ids: readonly ObjectId[]): Promise<UserDoc[]> {
    const key = (id: ObjectId) => `user id ${id}`;
    const kept = ids.map((id) => this.kept?.get(key(id)) as UserDoc | undefined);
    const missing = ids.filter((_, i) => !kept[i]);
    const read =
      missing.length > 0 ? await this.collections.users.find({ _id: { $in: missing } }).toArray() : [];
    for (const user of read) this.kept?.set(key(user._id), user);
    return [...kept.filter((user) => user !== undefined), ...read];
  }

  /**
   * Moves the recording id counter past `id` unless it is known to be there already; a cache that
   * keeps things moves it `headroom` further, so a run of increasing ids moves it once per run of
   * `headroom` (ids the counter hands out later skip what it reserves).
   */
  async counterPast(id: number, headroom: number): Promise<void> {
    if (id <= this.counterAtLeast) return;
    const value = this.kept ? id + headroom : id;
    await this.collections.counters.updateOne(
      { _id: RECORDING_ID_COUNTER },
      { $max: { value } },
      { upsert: true },
    );
    this.counterAtLeast = value;
  }

  private async lookup<T extends object>(key: string, read: () => Promise<T | null>): Promise<T | null> {
    if (!this.kept) return read();
    return ((await this.kept.fetch(key, { context: read })) as T | undefined) ?? null;
  }
}
