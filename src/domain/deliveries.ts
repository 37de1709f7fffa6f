/**
 * Asynchronous deliveries of a transcript or summary to a caller's URL: checked and authorised
 * here, then queued in the outbox that the delivery worker drains.
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import { DomainError } from './errors.js';
import { findMeeting } from './meetings.js';
import { requireDestinationUrl } from './urls.js';
import type { Viewer } from './viewer.js';

export type DeliveryContent = 'transcript' | 'summary';

/** Standard Webhooks message id: stable across every attempt of one message. */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

export async function requestDelivery(
  collections: Collections,
  viewer: Viewer,
  recordingId: number,
  content: DeliveryContent,
  destinationUrl: string,
): Promise<{ destinationUrl: string }> {
  const url = requireDestinationUrl(destinationUrl, 'destination_url');
  const meeting = await findMeeting(collections, viewer, recordingId);
  if (!meeting) throw new DomainError('NOT_FOUND', `No recording with id ${recordingId}.`);
  const now = new Date();
  await collections.outbox.insertOne({
    _id: new ObjectId(),
    messageId: newMessageId(),
    kind: content === 'transcript' ? 'transcript_delivery' : 'summary_delivery',
    recordingId,
    webhookId: null,
    requestedBy: viewer.user._id,
    destinationUrl: url,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
  });
  return { destinationUrl: url };
}
