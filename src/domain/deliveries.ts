/**
 * Asynchronous deliveries of a transcript or summary to a caller's URL: checked and authorised
 * here, then queued in the outbox that the delivery worker drains (with the retries and egress
 * guard of webhook events).
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { OutboxDoc } from '../db/documents.js';
import { DomainError } from './errors.js';
import { findMeeting } from './meetings.js';
import { outboxHasWork } from './outbox-signal.js';
import { requireDestinationUrl } from './urls.js';
import type { Viewer } from './viewer.js';

export type DeliveryContent = 'transcript' | 'summary';

/**
 * Where outgoing requests may go: resolves `url` and throws a BAD_USER_INPUT DomainError naming
 * `parameter` when the egress guard refuses it. The delivery layer supplies it (src/delivery/egress.ts).
 */
export type DestinationCheck = (url: string, parameter: string) => Promise<void>;

/** Standard Webhooks message id: stable across every attempt of one message. */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** The fields of a message nobody has tried to send yet. */
export function unsentMessage(now: Date) {
  return {
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

/** A destination URL checked for shape (http/https, no credentials) and by the egress guard. */
export async function checkedDestination(
  value: string,
  parameter: string,
  check: DestinationCheck,
): Promise<string> {
  const url = requireDestinationUrl(value, parameter);
  await check(url, parameter);
  return url;
}

export async function requestDelivery(
  collections: Collections,
  viewer: Viewer,
  recordingId: number,
  content: DeliveryContent,
  destinationUrl: string,
  check: DestinationCheck,
): Promise<{ destinationUrl: string; messageId: string }> {
  const url = requireDestinationUrl(destinationUrl, 'destination_url');
  const meeting = await findMeeting(collections, viewer, recordingId);
  if (!meeting) throw new DomainError('NOT_FOUND', `No recording with id ${recordingId}.`);
  await check(url, 'destination_url');
  const message: OutboxDoc = {
    _id: new ObjectId(),
    messageId: newMessageId(),
    kind: content === 'transcript' ? 'transcript_delivery' : 'summary_delivery',
    recordingId,
    webhookId: null,
    requestedBy: viewer.user._id,
    destinationUrl: url,
    ...unsentMessage(new Date()),
  };
  await collections.outbox.insertOne(message);
  outboxHasWork();
  return { destinationUrl: url, messageId: message.messageId };
}
