/**
 * Asynchronous deliveries of a transcript or summary to a caller's URL: checked and authorised
 * here, then queued as an outbox message that the delivery worker sends (with the retries and
 * egress guard of webhook events).
 */
import type { Collections } from '../db/collections.js';
import { DomainError } from './errors.js';
import { findMeeting } from './meetings.js';
import { type OutboxHint, queueDelivery } from './outbox.js';
import { requireDestinationUrl } from './urls.js';
import type { Viewer } from './viewer.js';

export type DeliveryContent = 'transcript' | 'summary';

/**
 * Where outgoing requests may go: resolves `url` and throws a BAD_USER_INPUT DomainError naming
 * `parameter` when the egress guard refuses it. The delivery layer supplies it (src/delivery/egress.ts).
 */
export type DestinationCheck = (url: string, parameter: string) => Promise<void>;

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

/** Queues a POST of the recording's `content` to `destinationUrl`, and says so on `hint`. */
export async function requestDelivery(
  collections: Collections,
  viewer: Viewer,
  recordingId: number,
  content: DeliveryContent,
  destinationUrl: string,
  check: DestinationCheck,
  hint: OutboxHint,
): Promise<{ destinationUrl: string; messageId: string }> {
  const url = requireDestinationUrl(destinationUrl, 'destination_url');
  const meeting = await findMeeting(collections, viewer, recordingId);
  if (!meeting) throw new DomainError('NOT_FOUND', `No recording with id ${recordingId}.`);
  await check(url, 'destination_url');
  const messageId = await queueDelivery(
    collections,
    {
      kind: content === 'transcript' ? 'transcript_delivery' : 'summary_delivery',
      recordingId,
      requestedBy: viewer.user._id,
      destinationUrl: url,
    },
    new Date(),
    hint,
  );
  return { destinationUrl: url, messageId };
}
