/**
 * The outbox: one message per webhook event or asynchronous delivery, and the whole life of a
 * message, from queueing to its last attempt. Everyone who touches a message comes here: content
 * ready (webhook events), deliveries (transcript and summary POSTs), webhooks (cancel, redeliver)
 * and the delivery worker (claim, body, outcome, release).
 *
 * - Queued `pending`, due at `nextAttemptAt`.
 * - Claimed in batches under one lease: a random token, and `nextAttemptAt` pushed to the lease's
 *   expiry, so a worker that dies holding a batch loses nothing: its messages are due again when
 *   the lease runs out.
 * - Every change after the claim filters on the lease token, so a worker whose lease ran out
 *   changes nothing (its attempt is still logged, with `recorded: false`). A batch's outcomes are
 *   recorded in one bulk write.
 * - It ends `delivered`, `failed` (retries exhausted, 410, a disabled webhook: can be redelivered)
 *   or `cancelled` (nothing may be sent any more).
 *
 * An app's hint (`OutboxHint`) tells its own workers (on any of its threads: the server's delivery
 * thread hears its requests' hints) that a message is due now, so they start at once instead of at
 * the next poll; other apps' workers, in this process or another, find it by polling. The
 * collection stays the only source of truth.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { type Filter, ObjectId } from 'mongodb';
import { type Collections, insertNew } from '../db/collections.js';
import type {
  AttemptOutcome,
  OutboxChange,
  OutboxDoc,
  OutboxKind,
  OutboxStatus,
  WebhookDoc,
} from '../db/documents.js';

// ---------------------------------------------------------------- the hint

/**
 * One app's wake-up hint: whoever queues a message due now says so, and the app's delivery worker
 * hears it, on whichever thread of the process it runs. It travels on a `BroadcastChannel` whose
 * name is the app's own (a random id), so two apps in one process (tests, the bench) do not wake
 * each other's workers. A worker thread opens the same hint by its `channel` name.
 */
export class OutboxHint {
  private sender: BroadcastChannel | undefined;
  private readonly listeners = new Set<BroadcastChannel>();

  /** `channel`: an existing hint's (a thread joining its app's); a new one of its own by default. */
  constructor(readonly channel = `meetings-gateway:outbox-queued:${randomUUID()}`) {}

  /** Tells the hint's listeners (in any thread, not this very call's) that a message is due now. */
  queued(): void {
    this.sender ??= unreferenced(new BroadcastChannel(this.channel));
    this.sender.postMessage(null);
  }

  /**
   * Calls `listener` (soon after, not during the call) whenever a message due now is queued through
   * this hint or another with the same channel, on any thread; returns the unsubscribe function.
   */
  onQueued(listener: () => void): () => void {
    const channel = unreferenced(new BroadcastChannel(this.channel));
    channel.onmessage = () => listener();
    this.listeners.add(channel);
    return () => {
      this.listeners.delete(channel);
      channel.close();
    };
  }

  /** Closes this hint's channels (listeners hear nothing more; a later `queued` opens one again). */
  close(): void {
    this.sender?.close();
    this.sender = undefined;
    for (const channel of this.listeners) channel.close();
    this.listeners.clear();
  }
}

/** Unreferenced: an open channel does not keep a process (or a thread) from ending. */
function unreferenced(channel: BroadcastChannel): BroadcastChannel {
  (channel as BroadcastChannel & { unref(): void }).unref();
  return channel;
}

// ---------------------------------------------------------------- queueing

/** Standard Webhooks message id (`webhook-id`): the same on every attempt of one message. */
function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** The fields of a message nobody has tried to send yet. */
function unsent(now: Date) {
  return {
    messageId: newMessageId(),
    status: 'pending' as const,
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
    body: null,
    leaseToken: null,
    leaseExpiresAt: null,
    lastAttemptId: null,
    lastAttemptAt: null,
    lastResponseStatus: null,
    lastError: null,
    finishedAt: null,
  };
}

/**
 * Queues a delivery (transcript, summary, download) to `destinationUrl` for `requestedBy`, and says
 * so on `hint`; returns its message id.
 */
export async function queueDelivery(
  collections: Collections,
  message: {
    kind: Exclude<OutboxKind, 'webhook_event' | 'change_event'>;
    recordingId: number;
    requestedBy: ObjectId;
    destinationUrl: string;
    downloadId?: string;
  },
  now: Date,
  hint: OutboxHint,
): Promise<string> {
  const doc: OutboxDoc = { _id: new ObjectId(), webhookId: null, ...message, ...unsent(now) };
  await collections.outbox.insertOne(doc);
  hint.queued();
  return doc.messageId;
}

/**
 * Queues the event of each webhook for its recording unless it exists, in one unordered insert:
 * (webhook, recording) is unique among events, so repeating a fan-out creates nothing twice (the
 * duplicates are refused one by one, the others stored). Returns how many this call created for
 * each recording. Said on `hint` when there is one (none: workers find them by polling, e.g. the
 * seeder's, a CLI's).
 */
export async function queueWebhookEvents(
  collections: Collections,
  fanOuts: readonly { recordingId: number; webhooks: readonly WebhookDoc[] }[],
  now: Date,
  hint?: OutboxHint,
): Promise<number[]> {
  const events: OutboxDoc[] = fanOuts.flatMap(({ recordingId, webhooks }) =>
    webhooks.map((webhook) => ({
      _id: new ObjectId(),
      kind: 'webhook_event' as const,
      webhookId: webhook._id,
      recordingId,
      requestedBy: webhook.ownerId,
      destinationUrl: webhook.url,
      ...unsent(now),
    })),
  );
  const refused = await insertOnce(collections, events, hint);
  const created = new Map<number, number>();
  events.forEach((event, i) => {
    if (!refused.has(i)) created.set(event.recordingId, (created.get(event.recordingId) ?? 0) + 1);
  });
  return fanOuts.map(({ recordingId }) => created.get(recordingId) ?? 0);
}

/**
 * Inserts events, those that exist already (unique per webhook and what they tell of) refused;
 * says so on `hint` when one was stored. Returns the indexes of the refused.
 */
async function insertOnce(
  collections: Collections,
  events: OutboxDoc[],
  hint?: OutboxHint,
): Promise<Set<number>> {
  // Those refused were queued before (a fan-out repeated, or another process queueing the same).
  const refused = await insertNew(collections.outbox, events);
  if (refused.size < events.length) hint?.queued();
  return refused;
}

/**
 * Queues change events (meeting.updated, meeting.deleted) unless they exist: (webhook, change) is
 * unique among them, so queueing again creates nothing twice. Returns how many it created.
 */
export async function queueChangeEvents(
  collections: Collections,
  events: readonly { webhook: WebhookDoc; recordingId: number; change: OutboxChange }[],
  now: Date,
  hint?: OutboxHint,
): Promise<number> {
  const docs: OutboxDoc[] = events.map(({ webhook, recordingId, change }) => ({
    _id: new ObjectId(),
    kind: 'change_event' as const,
    webhookId: webhook._id,
    recordingId,
    change,
    requestedBy: webhook.ownerId,
    destinationUrl: webhook.url,
    ...unsent(now),
  }));
  return docs.length - (await insertOnce(collections, docs, hint)).size;
}

// ---------------------------------------------------------------- the worker's side

/**
 * Claims up to `limit` due messages, most overdue first, under one lease (a token and an expiry at
 * `now + leaseMs`, which is also when they are due again should the worker die). Two commands: the
 * due rows are read, then leased with one update that takes only those still due; when another
 * worker took some in between, a third reads back which are this lease's.
 */
export async function claimBatch(
  collections: Collections,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<OutboxDoc[]> {
  const due = await collections.outbox
    .find({ status: 'pending', nextAttemptAt: { $lte: now } })
    .sort({ nextAttemptAt: 1 })
    .limit(limit)
    .toArray();
  if (due.length === 0) return [];
  const expires = new Date(now.getTime() + leaseMs);
  const lease = { leaseToken: randomUUID(), leaseExpiresAt: expires, nextAttemptAt: expires };
  const ids = due.map((m) => m._id);
  const { matchedCount } = await collections.outbox.updateMany(
    { _id: { $in: ids }, status: 'pending', nextAttemptAt: { $lte: now } },
    { $set: lease },
  );
  if (matchedCount === due.length) return due.map((m) => ({ ...m, ...lease }));
  return collections.outbox.find({ _id: { $in: ids }, leaseToken: lease.leaseToken }).toArray();
}

/** The claimed message, as long as the lease taken with it is still its holder's. */
function leased(message: OutboxDoc): Filter<OutboxDoc> {
  return { _id: message._id, leaseToken: message.leaseToken };
}

const unleased = { leaseToken: null, leaseExpiresAt: null };

/**
 * Stores the bodies built at the first attempts of a batch, in one command, before anything is
 * sent: a retry, by this worker or another, sends the same bytes. A message whose lease ran out
 * meanwhile keeps what it has (its new holder builds and stores its own).
 */
export async function storeBodies(
  collections: Collections,
  bodies: { message: OutboxDoc; body: string }[],
): Promise<void> {
  if (bodies.length === 0) return;
  await collections.outbox.bulkWrite(
    bodies.map(({ message, body }) => ({
      updateOne: { filter: leased(message), update: { $set: { body } } },
    })),
    { ordered: false },
  );
}

export interface AttemptRecord {
  /** The attempt's entry in `deliveryAttempts`; stored on the message as `lastAttemptId` when recorded. */
  id: ObjectId;
  outcome: AttemptOutcome;
  attemptedAt: Date;
  answeredAt: Date;
  /** When to try again, for outcome `retry`. */
  retryAt: Date | null;
  responseStatus: number | null;
  error: string | null;
}

/** What becomes of a leased message at the end of its batch. */
export type Settlement =
  /** It was sent: the outcome of the attempt. */
  | { message: OutboxDoc; attempt: AttemptRecord }
  /** Nothing may be sent (cancelled), or nothing can be (failed). */
  | { message: OutboxDoc; unsent: Extract<OutboxStatus, 'failed' | 'cancelled'>; reason: string; at: Date }
  /**
   * Handed back, due at `at`, without counting as an attempt: the worker is stopping, or the lease
   * left too little time to send it. `attemptId` when an attempt was cut short.
   */
  | { message: OutboxDoc; release: Date; attemptId: ObjectId | null };

function settlementUpdate(settlement: Settlement): Partial<OutboxDoc> {
  if ('attempt' in settlement) {
    const { message, attempt } = settlement;
    const finished = attempt.outcome !== 'retry';
    return {
      status: attempt.outcome === 'delivered' ? 'delivered' : finished ? 'failed' : 'pending',
      attempts: message.attempts + 1,
      nextAttemptAt: attempt.retryAt ?? attempt.answeredAt,
      lastAttemptId: attempt.id,
      lastAttemptAt: attempt.attemptedAt,
      lastResponseStatus: attempt.responseStatus,
      lastError: attempt.error,
      finishedAt: finished ? attempt.answeredAt : null,
    };
  }
  if ('unsent' in settlement)
    return { status: settlement.unsent, lastError: settlement.reason, finishedAt: settlement.at };
  return {
    nextAttemptAt: settlement.release,
    ...(settlement.attemptId && { lastAttemptId: settlement.attemptId }),
  };
}

const attemptIdOf = (settlement: Settlement): ObjectId | null =>
  'attempt' in settlement ? settlement.attempt.id : 'release' in settlement ? settlement.attemptId : null;

/**
 * Records a batch's settlements in one bulk write, each only while the message's lease is still
 * this batch's (a worker whose lease ran out changes nothing). Returns the ids (hex) of the attempts
 * whose outcome was recorded: all of them, unless some leases ran out, in which case the messages'
 * `lastAttemptId` tells which (one more read).
 */
export async function settleBatch(collections: Collections, settlements: Settlement[]): Promise<Set<string>> {
  if (settlements.length === 0) return new Set();
  const { matchedCount } = await collections.outbox.bulkWrite(
    settlements.map((settlement) => ({
      updateOne: {
        filter: leased(settlement.message),
        update: { $set: { ...settlementUpdate(settlement), ...unleased } },
      },
    })),
    { ordered: false },
  );
  const attemptIds = settlements.map(attemptIdOf).filter((id) => id !== null);
  if (matchedCount === settlements.length) return new Set(attemptIds.map((id) => id.toHexString()));
  const attempted = settlements.filter((s) => attemptIdOf(s) !== null).map((s) => s.message._id);
  const now = await collections.outbox
    .find({ _id: { $in: attempted } }, { projection: { lastAttemptId: 1 } })
    .toArray();
  const recorded = new Set(now.map((m) => m.lastAttemptId?.toHexString()));
  return new Set(attemptIds.map((id) => id.toHexString()).filter((id) => recorded.has(id)));
}

// ---------------------------------------------------------------- a webhook's messages

/** Nothing more is sent for a deleted webhook (a worker holding one finds the webhook gone and cancels it too). */
export async function cancelWebhookEvents(
  collections: Collections,
  webhookId: ObjectId,
  reason: string,
  now: Date,
): Promise<void> {
  await collections.outbox.updateMany(
    { webhookId, status: 'pending' },
    { $set: { status: 'cancelled', lastError: reason, finishedAt: now } },
  );
}

/** What a redelivery resets: a fresh retry schedule, due now, same message id and body. */
function redelivery(now: Date) {
  return {
    $set: { status: 'pending' as const, attempts: 0, nextAttemptAt: now, finishedAt: null, ...unleased },
  };
}

/**
 * Sends the webhook's event `messageId` again unless it is still pending (said on `hint`); the
 * message, or null when it is pending or unknown.
 */
export async function redeliverWebhookEvent(
  collections: Collections,
  webhookId: ObjectId,
  messageId: string,
  now: Date,
  hint: OutboxHint,
): Promise<OutboxDoc | null> {
  const message = await collections.outbox.findOneAndUpdate(
    { webhookId, messageId, status: { $in: ['delivered', 'failed', 'cancelled'] } },
    redelivery(now),
    { returnDocument: 'after' },
  );
  if (message) hint.queued();
  return message;
}

/**
 * Sends again every failed event of the webhook created at or after `since` (said on `hint`);
 * returns how many.
 */
export async function redeliverFailedWebhookEvents(
  collections: Collections,
  webhookId: ObjectId,
  since: Date,
  now: Date,
  hint: OutboxHint,
): Promise<number> {
  const { modifiedCount } = await collections.outbox.updateMany(
    { webhookId, status: 'failed', createdAt: { $gte: since } },
    redelivery(now),
  );
  if (modifiedCount > 0) hint.queued();
  return modifiedCount;
}

/** A receiver that failed for this long without a single success gets its webhook disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;

/**
 * What an attempt's outcome does to its webhook: 410 disables it; so does a run of failures lasting
 * 5 days; a success ends the run. Returns why the webhook was disabled by this call, if it was.
 * `webhook.failingSince` is kept in step, so the outcomes of one batch apply one after the other.
 */
export async function trackWebhook(
  collections: Collections,
  webhook: WebhookDoc,
  outcome: AttemptOutcome,
  now: Date,
): Promise<string | null> {
  const webhooks = collections.webhooks;
  const _id = webhook._id;
  if (outcome === 'delivered') {
    if (webhook.failingSince) {
      // the usual case has nothing to clear
      await webhooks.updateOne({ _id, failingSince: { $ne: null } }, { $set: { failingSince: null } });
      webhook.failingSince = null;
    }
    return null;
  }
  if (outcome === 'gone') {
    const reason = 'the receiver answered 410 Gone';
    const disabled = await webhooks.updateOne(
      { _id, disabledAt: null },
      { $set: { disabledAt: now, disabledReason: reason } },
    );
    return disabled.modifiedCount === 1 ? reason : null;
  }
  await webhooks.updateOne({ _id, failingSince: null }, { $set: { failingSince: now } });
  webhook.failingSince ??= now;
  const reason = 'every delivery failed for 5 days';
  const disabled = await webhooks.updateOne(
    { _id, disabledAt: null, failingSince: { $lte: new Date(now.getTime() - DISABLE_AFTER_FAILING_MS) } },
    { $set: { disabledAt: now, disabledReason: reason } },
  );
  return disabled.modifiedCount === 1 ? reason : null;
}
