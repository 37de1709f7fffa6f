/**
 * Webhook events of changes, for webhooks that opted in (made through GraphQL): `meeting.updated`
 * when a meeting its owner may see changes (content or sharing), `meeting.deleted` when it is
 * deleted or no longer shared with them. Each in the category `triggered_for` names, as content
 * ready is. Content ready itself (content-ready.ts) is unchanged: a webhook that did not opt in
 * receives exactly what it did before.
 *
 * Queued from the change log (change-log.ts), not by the writers: every worker follows the log
 * from a position kept in `counters`, queues the events of what it reads, then moves the position
 * on. A worker that dies in between leaves the position where it was, and the next read queues the
 * same events again, which the outbox refuses as duplicates ((webhook, position) is unique). So a
 * change is announced once it is logged, and only then: never one that was not stored, never
 * skipped (the log's reader stops before a change still being written).
 */
import type { Collections } from '../db/collections.js';
import {
  type AudienceDoc,
  CHANGE_LOG_START,
  type ChangeEventType,
  type OutboxChange,
} from '../db/documents.js';
import { type ChangeEntry, readLog, settledPosition } from './change-log.js';
import { type Candidate, candidateWebhooks, categoryFor, eventsOf, isCandidate } from './content-ready.js';
import { type OutboxHint, queueChangeEvents } from './outbox.js';
import { canSee } from './visibility.js';

/** Where, in `counters`, the workers keep the position up to which change events are queued. */
const FOLLOWED = 'changeEventsQueuedUpTo';

/** Positions read in one go. */
const BATCH = 500;

/** The event `candidate` is sent for `entry`, if any. */
function eventFor({ webhook, owner }: Candidate, entry: ChangeEntry): OutboxChange | null {
  // A webhook hears of what changed after it was made.
  if (webhook.createdAt > entry.loggedAt) return null;
  const covered = (meeting: AudienceDoc | null) => {
    if (!meeting || !isCandidate(webhook, meeting) || !canSee(owner, meeting)) return false;
    const category = categoryFor(owner, meeting);
    return category !== null && webhook.triggeredFor.includes(category);
  };
  const before = covered(entry.before);
  const after = covered(entry.after);
  const change = (type: ChangeEventType, reason?: OutboxChange['reason']): OutboxChange | null =>
    eventsOf(webhook).includes(type)
      ? { type, position: entry._id, kinds: entry.kinds, at: entry.at, ...(reason && { reason }) }
      : null;
  if (entry.kinds.includes('deleted')) return before ? change('meeting.deleted', 'deleted') : null;
  // A meeting created is content ready's to announce (once it has its summary).
  if (entry.kinds.includes('created')) return null;
  if (after) return change('meeting.updated');
  return before ? change('meeting.deleted', 'unshared') : null;
}

/**
 * Queues the change events of the next stretch of the log (said on `hint`), and moves the position
 * on. Returns how many events it queued. The first call starts where the log stands.
 */
export async function queueEventsOfChanges(
  collections: Collections,
  now: Date,
  hint?: OutboxHint,
): Promise<number> {
  // Where it stands, and where the log starts (retention), in one read.
  const marks = await collections.counters.find({ _id: { $in: [FOLLOWED, CHANGE_LOG_START] } }).toArray();
  const followed = marks.find((m) => m._id === FOLLOWED);
  if (!followed) {
    const { position } = await settledPosition(collections, now);
    await collections.counters.updateOne({ _id: FOLLOWED }, { $max: { value: position } }, { upsert: true });
    return 0;
  }
  // What retention removed (workers stopped for longer than it) is not announced any more.
  const start = marks.find((m) => m._id === CHANGE_LOG_START)?.value ?? 1;
  const from = Math.max(followed.value, start - 1);
  const read = await readLog(collections, from, BATCH, now);
  if (read.end === followed.value) return 0;
  const entries = read.entries.filter((e) => !e.kinds.includes('created'));
  const audiences = entries.flatMap((e) => [e.before, e.after].filter((a): a is AudienceDoc => a !== null));
  const candidates = (await candidateWebhooks(collections, audiences)).filter(({ webhook }) =>
    eventsOf(webhook).some((type) => type !== 'content_ready'),
  );
  const events = entries.flatMap((entry) =>
    candidates.flatMap((candidate) => {
      const change = eventFor(candidate, entry);
      return change ? [{ webhook: candidate.webhook, recordingId: entry.recordingId, change }] : [];
    }),
  );
  const queued = await queueChangeEvents(collections, events, now, hint);
  await collections.counters.updateOne({ _id: FOLLOWED }, { $max: { value: read.end } });
  return queued;
}
