/**
 * After the load, the soak waits for the deliveries still under way: until every (recording,
 * webhook) pair has arrived at its receiver, or --drain seconds have gone.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Receivers } from '../../bench/fanout.js';
import type { Ingester } from './ingester.js';

export interface Drain {
  /** Recordings ingested times webhooks. */
  expectedPairs: number;
  seconds: number;
}

export async function drainDeliveries(
  ingester: Ingester,
  receivers: Receivers,
  webhooks: number,
  drainSeconds: number,
): Promise<Drain> {
  const expectedPairs = ingester.ingested.size * webhooks;
  const arrivedPairs = () => {
    const seen = new Set(receivers.arrivals.map((a) => `${a.webhook}:${a.recordingId}`));
    let n = 0;
    for (const recordingId of ingester.ingested.keys())
      for (let i = 0; i < webhooks; i++) if (seen.has(`${i}:${recordingId}`)) n++;
    return n;
  };
  const drainStart = performance.now();
  while (arrivedPairs() < expectedPairs && performance.now() - drainStart < drainSeconds * 1000)
    await sleep(250);
  return { expectedPairs, seconds: (performance.now() - drainStart) / 1000 };
}
