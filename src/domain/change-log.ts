/**
 * The change log: every change of a recording (created, content, sharing, deleted) at a position
 * of its own, in the order changes are logged. The change feed (meeting-changes.ts) reads it, and
 * `updated_after` pages by the positions it gives meetings (meetings.ts).
 *
 * Logging a change, durable without transactions (a standalone server has none):
 * 1. The write that stores the change marks the meeting with it (`pendingChange`).
 * 2. A position is taken from a counter; the meeting is given it (`changeSeq`), then the entry is
 *    inserted at it.
 * 3. The mark is cleared.
 * A process that dies after 1 leaves the mark, and a worker's sweep logs the change (the change's
 * id is unique in the log, so it is never logged twice); one that dies before 1 stored nothing.
 *
 * A change logged late is never skipped: positions are taken before their entries are written, so
 * a reader that finds a position without its entry while later ones have theirs (a gap) stops
 * before it. A gap older than `GAP_GRACE_MS` is voided (a void entry takes the position); the
 * writer whose insert then fails on the unique `_id` takes a new position. Step 2 gives the meeting
 * its position before the entry exists, so by the time a reader sees an entry, its meeting holds
 * that position or a later one.
 *
 * Retention: the worker trims entries logged before the retention window, moving the log's start
 * first; a reader whose position is before the start must resync.
 */
import type { AnyBulkWriteOperation, ObjectId } from 'mongodb';
import { type Collections, insertNew } from '../db/collections.js';
import {
  type AudienceDoc,
  CHANGE_LOG_SETTLED,
  CHANGE_LOG_START,
  CHANGE_SEQ_COUNTER,
  type CounterDoc,
  type MeetingChangeDoc,
  type MeetingDoc,
  type PendingChangeDoc,
} from '../db/documents.js';
import { audienceOf } from './visibility.js';

/** How long a position may stay without its entry while later ones have theirs, before it is voided. */
export const GAP_GRACE_MS = 5_000;

/** A logged change (not a void). */
export type ChangeEntry = Extract<MeetingChangeDoc, { changeId: ObjectId }>;

/** A change to log: its meeting's mark, with who could see the meeting before and after it. */
export interface ChangeToLog {
  recordingId: number;
  orgId: ObjectId;
  pending: PendingChangeDoc;
  before: AudienceDoc | null;
  after: AudienceDoc | null;
}

/** The change a meeting's mark stands for (the meeting as stored with it). */
export function markedChange(meeting: MeetingDoc & { pendingChange: PendingChangeDoc }): ChangeToLog {
  const { pendingChange: pending } = meeting;
  const deleted = pending.kinds.includes('deleted');
  return {
    recordingId: meeting.recordingId,
    orgId: meeting.orgId,
    pending,
    before: deleted ? audienceOf(meeting) : (pending.before ?? null),
    after: deleted ? null : audienceOf(meeting),
  };
}

/**
 * `count` new positions, in order, with their times: each a millisecond after the one before, and
 * no earlier than `now`. One command.
 */
async function takePositions(
  collections: Collections,
  count: number,
  now: Date,
): Promise<{ position: number; at: Date }[]> {
  const counter = await collections.counters.findOneAndUpdate(
    { _id: CHANGE_SEQ_COUNTER },
    [
      {
        $set: {
          value: { $add: [{ $ifNull: ['$value', 0] }, count] },
          atMs: { $max: [{ $add: [{ $ifNull: ['$atMs', 0] }, count] }, now.getTime() + count - 1] },
        },
      },
    ],
    { upsert: true, returnDocument: 'after' },
  );
  const { value: last, atMs: lastMs } = counter as Required<CounterDoc>;
  return Array.from({ length: count }, (_, i) => ({
    position: last - count + 1 + i,
    at: new Date(lastMs - count + 1 + i),
  }));
}

/**
 * Logs changes whose meetings carry their marks (step 2 and 3 above), in one command per step for
 * the whole batch. Idempotent: a change already logged (by a sweep, or a writer thought dead) is
 * not logged again. A deletion keeps its mark: the meeting goes with it once purged (deletion.ts).
 */
export async function logChanges(
  collections: Collections,
  changes: readonly ChangeToLog[],
  now: Date,
): Promise<void> {
  if (changes.length === 0) return;
  let waiting = [...changes];
  while (waiting.length > 0) {
    const positions = await takePositions(collections, waiting.length, now);
    await collections.meetings.bulkWrite(
      waiting.map((change, i) => ({
        updateOne: {
          filter: { recordingId: change.recordingId },
          update: { $max: { changeSeq: positions[i]!.position, updatedAt: positions[i]!.at } },
        },
      })),
      { ordered: false },
    );
    const entries: ChangeEntry[] = waiting.map((change, i) => ({
      _id: positions[i]!.position,
      changeId: change.pending.id,
      recordingId: change.recordingId,
      orgId: change.orgId,
      kinds: change.pending.kinds,
      before: change.before,
      after: change.after,
      at: positions[i]!.at,
      loggedAt: now,
    }));
    waiting = await notInserted(collections, entries, waiting, now);
  }
  const stored = changes.filter((change) => !change.pending.kinds.includes('deleted'));
  if (stored.length === 0) return;
  await collections.meetings.bulkWrite(
    stored.map(
      (change): AnyBulkWriteOperation<MeetingDoc> => ({
        updateOne: {
          filter: { recordingId: change.recordingId, 'pendingChange.id': change.pending.id },
          update: { $unset: { pendingChange: '' } },
        },
      }),
    ),
    { ordered: false },
  );
}

/**
 * Inserts the entries; returns the changes of those refused because a reader voided their
 * positions (they take new ones). One refused because its change is already in the log (a
 * deletion finished twice, a sweep after a writer thought dead) is done, and the position it took
 * is voided at once: readers would otherwise wait the grace at it.
 */
async function notInserted(
  collections: Collections,
  entries: ChangeEntry[],
  changes: ChangeToLog[],
  now: Date,
): Promise<ChangeToLog[]> {
  const refused = [...(await insertNew(collections.changes, entries))];
  if (refused.length === 0) return [];
  const ids = refused.map((i) => entries[i]!.changeId);
  const logged = await collections.changes
    .find({ changeId: { $exists: true, $in: ids } }, { projection: { changeId: 1 } })
    .toArray();
  const done = new Set(logged.map((e) => ('changeId' in e ? e.changeId.toHexString() : '')));
  const isDone = (i: number) => done.has(entries[i]!.changeId.toHexString());
  // Those logged at another position leave theirs empty; a position a reader voided holds a void.
  await voidPositions(
    collections,
    refused.filter(isDone).map((i) => entries[i]!._id),
    now,
  );
  return refused.filter((i) => !isDone(i)).map((i) => changes[i]!);
}

/** A stretch of the log read in order. */
export interface LogRead {
  entries: ChangeEntry[];
  /** The last position read without a gap before it (voids included); `after` when none. */
  end: number;
  /**
   * Whether positions after `end` hold entries to read now (read again from `end`); false at the
   * end of the log, and before a gap whose writer may still be writing (read again later).
   */
  more: boolean;
}

/**
 * Up to `limit` positions after `after`, stopping before a gap younger than the grace (voiding
 * those older). One command, and one more per gap voided.
 */
export async function readLog(
  collections: Collections,
  after: number,
  limit: number,
  now: Date,
): Promise<LogRead> {
  for (;;) {
    const rows = await collections.changes
      .find({ _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    const entries: ChangeEntry[] = [];
    let end = after;
    let gap: { from: number; to: number; successor: MeetingChangeDoc } | null = null;
    for (const row of rows) {
      if (row._id !== end + 1) {
        gap = { from: end + 1, to: row._id - 1, successor: row };
        break;
      }
      end = row._id;
      if (!('void' in row)) entries.push(row);
    }
    if (!gap) return { entries, end, more: rows.length === limit };
    if (now.getTime() - gap.successor.loggedAt.getTime() < GAP_GRACE_MS) return { entries, end, more: false };
    const positions = Array.from({ length: gap.to - gap.from + 1 }, (_, i) => gap.from + i);
    await voidPositions(collections, positions, now);
    // Read again from the start: the gap now holds voids, or the entries that beat them to it.
  }
}

/** Voids `positions`; those whose entries arrived meanwhile keep them. */
async function voidPositions(collections: Collections, positions: number[], now: Date): Promise<void> {
  await insertNew(
    collections.changes,
    positions.map((_id) => ({ _id, void: true as const, loggedAt: now })),
  );
}

/** The log's first position kept: a reader after an earlier one missed what retention removed. */
export async function logStart(collections: Collections): Promise<number> {
  const start = await collections.counters.findOne({ _id: CHANGE_LOG_START });
  return start?.value ?? 1;
}

/** A position up to which the log has no gap, and the time of the last change logged up to it. */
export interface Settled {
  position: number;
  at: Date;
}

/**
 * The last position up to which the log has no gap: nothing logged later can take a position up
 * to it, and every meeting whose change is logged up to it holds its position and time already
 * (so a meeting updated at or before `at` shows every change it will ever show up to then). Found
 * from the last one found (kept in `counters`, moved on by every caller that finds a later one):
 * a few commands however long the log.
 */
export async function settledPosition(collections: Collections, now: Date): Promise<Settled> {
  const [known, start] = await Promise.all([
    collections.counters.findOne({ _id: CHANGE_LOG_SETTLED }),
    logStart(collections),
  ]);
  const from = Math.max(known?.value ?? 0, start - 1);
  let settled: Settled = { position: from, at: new Date(known?.atMs ?? 0) };
  for (;;) {
    const read = await readLog(collections, settled.position, 1000, now);
    const last = read.entries.at(-1);
    const advanced = read.end > settled.position;
    settled = { position: read.end, at: last ? last.at : settled.at };
    if (!advanced || !read.more) break;
  }
  if (settled.position > from)
    await collections.counters.updateOne(
      { _id: CHANGE_LOG_SETTLED },
      { $max: { value: settled.position, atMs: settled.at.getTime() } },
      { upsert: true },
    );
  return settled;
}

/**
 * Removes what was logged before the retention window (`retentionMs`), at most `limit` positions a
 * call: the log's start moves first, so a reader never takes a removed position for a gap it may
 * void. Returns how many positions it removed.
 */
export async function trimLog(
  collections: Collections,
  now: Date,
  retentionMs: number,
  limit = 10_000,
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionMs);
  const start = await logStart(collections);
  const old = await collections.changes
    .find({ _id: { $gte: start } }, { projection: { loggedAt: 1 } })
    .sort({ _id: 1 })
    .limit(limit)
    .toArray();
  const firstKept = old.findIndex((row) => row.loggedAt > cutoff);
  const kept = firstKept === -1 ? undefined : old[firstKept]!._id;
  const newStart = kept ?? (old.length > 0 ? old[old.length - 1]!._id + 1 : start);
  if (newStart <= start) return 0;
  await collections.counters.updateOne(
    { _id: CHANGE_LOG_START },
    { $max: { value: newStart } },
    { upsert: true },
  );
  const { deletedCount } = await collections.changes.deleteMany({ _id: { $lt: newStart } });
  return deletedCount;
}
