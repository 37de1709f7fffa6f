/**
 * The service's RSS at rest: two full collections (the service runs with --expose-gc), then the
 * lowest of the samples taken over two seconds. Collecting first removes the garbage the load
 * leaves behind, whose amount depends on when V8 last collected rather than on what is retained;
 * the minimum of a few samples drops the transient allocations of the ingestions and deliveries
 * still going on at that moment. Both readings (after warm-up, at the end) are taken the same way,
 * with the HTTP load stopped and the ingester still running.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Child } from '../../bench/ipc.js';

export interface RestingMemory {
  rss: number;
  heapUsed: number;
  /** Whether the collections ran (the service was started with --expose-gc). */
  gc: boolean;
}

export async function restingMemory(service: Child): Promise<RestingMemory> {
  const gc = await service.call<boolean>('gc', null);
  await sleep(300);
  await service.call('gc', null);
  let rss = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    await sleep(200);
    rss = Math.min(rss, service.rss() ?? Number.POSITIVE_INFINITY);
  }
  const { heapUsed, rss: reported } = await service.stats();
  return { rss: Number.isFinite(rss) ? rss : reported, heapUsed, gc };
}
