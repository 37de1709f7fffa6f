/**
 * The outbox: one message per webhook event or asynchronous delivery, and the whole life of a
 * message, from queueing to its last attempt. Everyone who touches a message comes here: content
 * ready (webhook events), deliveries (transcript and summary POSTs), webhooks (cancel, redeliver)
 * and the delivery worker (claim, body, outcome, release).
 *
 * - Queued `pending`, due at `nextAttemptAt`.
 * - Claimed with a lease: a random token, and `nextAttemptAt` pushed to the lease's expiry, so a
 *   worker that dies holding it loses nothing: the message is due again when the lease runs out.
 * - Every change after the claim filters on the lease token, so a worker whose lease ran out
 *   changes nothing (its attempt is still logged, with `recorded: false`).
 * - It ends `delivered`, `failed` (retries exhausted, 410, a disabled webhook: can be redelivered)
 *   or `cancelled` (nothing may be sent any more).
 *
 * A process-local hint tells this process's worker that a message is due now, so it starts at once
 * instead of at its next poll; workers of other processes find it by polling. The collection stays
 * the only source of truth.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type Filter, MongoServerError, ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { AttemptOutcome, OutboxDoc, OutboxKind, OutboxStatus, WebhookDoc } from '../db/documents.js';

// ---------------------------------------------------------------- the hint

const hint = new EventEmitter().setMaxListeners(0);

function hintWork(): void {
  hint.emit('work');
}

/** Calls `listener` whenever this process queues a message that is due now; returns the unsubscribe function. */
export function onQueued(listener: () => void): () => void {
  hint.on('work', listener);
  return () => hint.off('work', listener);
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
    lastAttemptAt: null,
    lastResponseStatus: null,
    lastError: null,
    finishedAt: null,
  };
}

/** Queues a transcript or summary delivery to `destinationUrl` for `requestedBy`; returns its message id. */
export async function queueDelivery(
  collections: Collections,
  message: {
    kind: Exclude<OutboxKind, 'webhook_event'>;
    recordingId: number;
    requestedBy: ObjectId;
    destinationUrl: string;
  },
  now: Date,
): Promise<string> {
  const doc: OutboxDoc = { _id: new ObjectId(), webhookId: null, ...message, ...unsent(now) };
  await collections.outbox.insertOne(doc);
  hintWork();
  return doc.messageId;
}

function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000;
}

/**
 * Queues the event of `webhook` for a recording unless it exists: (webhook, recording) is unique,
 * so repeating a fan-out creates nothing twice. True when this call created it.
 */
export async function queueWebhookEvent(
  collections: Collections,
  webhook: WebhookDoc,
  recordingId: number,
  now: Date,
): Promise<boolean> {
  try {
    const result = await collections.outbox.updateOne(
      { kind: 'webhook_event', webhookId: webhook._id, recordingId },
      {
        $setOnInsert: { requestedBy: webhook.ownerId, destinationUrl: webhook.url, ...unsent(now) },
      },
      { upsert: true },
    );
    if (result.upsertedCount === 0) return false;
    hintWork();
    return true;
  } catch (error) {
    // Two processes fanning out the same meeting at once: the other one inserted it.
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

// ---------------------------------------------------------------- the worker's side

/** Takes the most overdue pending message and leases it until `now + leaseMs`; null when nothing is due. */
export function claimMessage(
  collections: Collections,
  now: Date,
  leaseMs: number,
): Promise<OutboxDoc | null> {
  const expires = new Date(now.getTime() + leaseMs);
  return collections.outbox.findOneAndUpdate(
    { status: 'pending', nextAttemptAt: { $lte: now } },
    { $set: { leaseToken: randomUUID(), leaseExpiresAt: expires, nextAttemptAt: expires } },
    { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
  );
}

/** The claimed message, as long as the lease taken with it is still its holder's. */
function leased(message: OutboxDoc): Filter<OutboxDoc> {
  return { _id: message._id, leaseToken: message.leaseToken };
}

const unleased = { leaseToken: null, leaseExpiresAt: null };

/** Stores the body built at the first attempt; false when the lease ran out meanwhile. */
export async function storeBody(
  collections: Collections,
  message: OutboxDoc,
  body: string,
): Promise<boolean> {
  const stored = await collections.outbox.updateOne(leased(message), { $set: { body } });
  return stored.modifiedCount === 1;
}

/** Ends a leased message without sending it: nothing may be sent (cancelled), or nothing can be (failed). */
export async function endUnsent(
  collections: Collections,
  message: OutboxDoc,
  status: Extract<OutboxStatus, 'failed' | 'cancelled'>,
  reason: string,
  now: Date,
): Promise<void> {
  await collections.outbox.updateOne(leased(message), {
    $set: { status, lastError: reason, finishedAt: now, ...unleased },
  });
}

/** Hands a leased message back, due at `now` (a stopping worker does not make it wait for the lease). */
export async function releaseMessage(
  collections: Collections,
  message: OutboxDoc,
  now: Date,
): Promise<boolean> {
  const released = await collections.outbox.updateOne(leased(message), {
    $set: { ...unleased, nextAttemptAt: now },
  });
  return released.modifiedCount === 1;
}

export interface AttemptRecord {
  outcome: AttemptOutcome;
  attemptedAt: Date;
  answeredAt: Date;
  /** When to try again, for outcome `retry`. */
  retryAt: Date | null;
  responseStatus: number | null;
  error: string | null;
}

/** Records the outcome of one attempt of a leased message; false when the lease had run out. */
export async function recordAttempt(
  collections: Collections,
  message: OutboxDoc,
  attempt: AttemptRecord,
): Promise<boolean> {
  const finished = attempt.outcome !== 'retry';
  const status: OutboxStatus =
    attempt.outcome === 'delivered' ? 'delivered' : finished ? 'failed' : 'pending';
  const recorded = await collections.outbox.updateOne(leased(message), {
    $set: {
      status,
      attempts: message.attempts + 1,
      nextAttemptAt: attempt.retryAt ?? attempt.answeredAt,
      lastAttemptAt: attempt.attemptedAt,
      lastResponseStatus: attempt.responseStatus,
      lastError: attempt.error,
      finishedAt: finished ? attempt.answeredAt : null,
      ...unleased,
    },
  });
  return recorded.modifiedCount === 1;
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

/** Sends the webhook's event `messageId` again unless it is still pending; the message, or null when it is pending or unknown. */
export async function redeliverWebhookEvent(
  collections: Collections,
  webhookId: ObjectId,
  messageId: string,
  now: Date,
): Promise<OutboxDoc | null> {
  const message = await collections.outbox.findOneAndUpdate(
    { webhookId, messageId, status: { $in: ['delivered', 'failed', 'cancelled'] } },
    redelivery(now),
    { returnDocument: 'after' },
  );
  if (message) hintWork();
  return message;
}

/** Sends again every failed event of the webhook created at or after `since`; returns how many. */
export async function redeliverFailedWebhookEvents(
  collections: Collections,
  webhookId: ObjectId,
  since: Date,
  now: Date,
): Promise<number> {
  const { modifiedCount } = await collections.outbox.updateMany(
    { webhookId, status: 'failed', createdAt: { $gte: since } },
    redelivery(now),
  );
  if (modifiedCount > 0) hintWork();
  return modifiedCount;
}

/** A receiver that failed for this long without a single success gets its webhook disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;

/**
 * What an attempt's outcome does to its webhook: 410 disables it; so does a run of failures lasting
 * 5 days; a success ends the run. Returns why the webhook was disabled by this call, if it was.
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
    if (webhook.failingSince)
      // the usual case has nothing to clear
      await webhooks.updateOne({ _id, failingSince: { $ne: null } }, { $set: { failingSince: null } });
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
  const reason = 'every delivery failed for 5 days';
  const disabled = await webhooks.updateOne(
    { _id, disabledAt: null, failingSince: { $lte: new Date(now.getTime() - DISABLE_AFTER_FAILING_MS) } },
    { $set: { disabledAt: now, disabledReason: reason } },
  );
  return disabled.modifiedCount === 1 ? reason : null;
}
