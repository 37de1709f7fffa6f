/**
 * What the outbox says, against what the receivers got: for every ingested recording and webhook,
 * its event and whether it arrived, at the right receiver (the latency from the start of the
 * ingestion when it did; the event's status and last attempt when it did not), and the recordings
 * that queued another number of events than there are webhooks.
 */
import type { Receivers } from '../../bench/fanout.js';
import { connectDatabase } from '../../src/db/connection.js';
import type { Ingester } from './ingester.js';

export interface Deliveries {
  /** The ingested recordings' webhook events by status. */
  outboxByStatus: Record<string, number>;
  /** The (recording, webhook) pairs not received, each with why as far as the outbox tells. */
  lost: string[];
  /** Events that arrived at another webhook's receiver. */
  misrouted: string[];
  /** Ingest start to arrival of each event received, ms, sorted. */
  latencies: number[];
  /** Recording id and events queued, of those that queued another number than --webhooks. */
  wrongCounts: [number, { at: number; queued: number }][];
}

export async function reconcileDeliveries(
  uri: string,
  ingester: Ingester,
  receivers: Receivers,
  webhookOfUrl: Map<string, number>,
  webhooks: number,
): Promise<Deliveries> {
  const observer = await connectDatabase(uri, 'soak');
  const recordingIds = [...ingester.ingested.keys()];
  const outbox = await observer.collections.outbox
    .find({ kind: 'webhook_event', recordingId: { $in: recordingIds } })
    .project<{
      messageId: string;
      recordingId: number;
      destinationUrl: string;
      status: string;
      attempts: number;
      lastResponseStatus: number | null;
      lastError: string | null;
    }>({
      messageId: 1,
      recordingId: 1,
      destinationUrl: 1,
      status: 1,
      attempts: 1,
      lastResponseStatus: 1,
      lastError: 1,
    })
    .toArray()
    .finally(() => observer.close());
  const arrivalById = new Map(receivers.arrivals.map((a) => [a.messageId, a]));
  const outboxByStatus: Record<string, number> = {};
  const eventOfPair = new Map<string, (typeof outbox)[number]>();
  const misrouted: string[] = [];
  for (const event of outbox) {
    outboxByStatus[event.status] = (outboxByStatus[event.status] ?? 0) + 1;
    const webhook = webhookOfUrl.get(event.destinationUrl);
    eventOfPair.set(`${webhook}:${event.recordingId}`, event);
    const arrival = arrivalById.get(event.messageId);
    if (arrival && arrival.webhook !== webhook)
      misrouted.push(`${event.messageId} (webhook ${webhook}) arrived at receiver ${arrival.webhook}`);
  }
  const lost: string[] = [];
  const latencies: number[] = [];
  for (const [recordingId, { at }] of ingester.ingested) {
    for (let i = 0; i < webhooks; i++) {
      const key = `${i}:${recordingId}`;
      const event = eventOfPair.get(key);
      const arrival = event ? arrivalById.get(event.messageId) : undefined;
      if (arrival && arrival.webhook === i) {
        latencies.push(arrival.at - at);
        continue;
      }
      lost.push(
        event
          ? `recording ${recordingId} -> webhook ${i}: ${event.messageId} ${event.status} after ${event.attempts} attempts ` +
              `(last status ${event.lastResponseStatus ?? '-'}${event.lastError ? `, ${event.lastError}` : ''}), not received`
          : `recording ${recordingId} -> webhook ${i}: no event in the outbox`,
      );
    }
  }
  latencies.sort((a, b) => a - b);
  const wrongCounts = [...ingester.ingested].filter(([, { queued }]) => queued !== webhooks);
  return { outboxByStatus, lost, misrouted, latencies, wrongCounts };
}
