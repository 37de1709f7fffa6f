/**
 * The delivery worker: drains the outbox (webhook events, transcript and summary deliveries) and
 * finishes fan-outs left pending. It runs inside the server and alone (`npm run worker`); any
 * number of workers may share one database.
 *
 * - In batches: up to `batchSize` due messages are claimed under one lease (src/domain/outbox.ts,
 *   which owns a message's life), prepared together (preparation.ts), sent through the worker's
 *   `concurrency` send slots (sender.ts), and settled together (settlement.ts). The next batch is
 *   claimed while the last sends of the previous one are out, but not while another is being
 *   prepared: what is queued meanwhile joins the next batch.
 * - Within the lease: a worker that dies holding a batch loses nothing: its messages are due again
 *   when the lease runs out, and its late outcomes are not recorded.
 * - At least once: a message can reach its receiver more than once (a lease that ran out, a crash
 *   after the request), always with the same `webhook-id`, which receivers use to deduplicate.
 *
 * This file schedules: claims (gathered while messages keep coming, backed off in an outage), sweeps
 * of pending fan-outs, the batches in its hands, and stopping; what happens to each message is the
 * business of the three files named above.
 */
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.js';
import type { Collections } from '../db/collections.js';
import type { OutboxDoc } from '../db/documents.js';
import type { MediaStore } from '../db/media-store.js';
import { OutageBackoff } from '../db/outage.js';
import { queueEventsOfChanges } from '../domain/change-events.js';
import { settledPosition, trimLog } from '../domain/change-log.js';
import { type Clock, systemClock } from '../domain/clock.js';
import { finishPendingFanOuts } from '../domain/content-ready.js';
import { finishPendingChanges } from '../domain/deletion.js';
import { claimBatch, type OutboxHint, type Settlement } from '../domain/outbox.js';
import { createExecutor } from '../graphql/execution.js';
import type { Logger } from '../logger.js';
import { EgressGuard } from './egress.js';
import { Payloads } from './payload.js';
import { Preparer, type Send } from './preparation.js';
import { type Attempted, Sender } from './sender.js';
import { type AttemptListener, Settler } from './settlement.js';
import { Slots } from './slots.js';
import { ViewerCache } from './viewer-cache.js';

export interface WorkerOptions {
  collections: Collections;
  logger: Logger;
  egress: EgressGuard;
  clock?: Clock;
  /** Messages sent at the same time. */
  concurrency?: number;
  /** Messages claimed under one lease. */
  batchSize?: number;
  /** How often an idle worker looks for due messages. */
  pollMs?: number;
  /** How long a claim holds; must exceed timeoutMs. */
  leaseMs?: number;
  /** Total time of one attempt. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** A pending fan-out or change younger than this is left to the process that is doing it. */
  sweepGraceMs?: number;
  /** Recordings' media: a deletion a process left unfinished removes its file. */
  media: MediaStore;
  /** How long the change feed keeps changes (CHANGE_RETENTION_DAYS). */
  changeRetentionMs?: number;
  /** For the retry jitter. */
  random?: () => number;
  /** Told of every attempt whose outcome was recorded (metrics). */
  onAttempt?: AttemptListener;
  /**
   * The hint of the app it works for (src/app.ts): what that app queues due now starts at once.
   * Without one it finds work by polling only (`npm run worker`, another process's work).
   */
  hint?: OutboxHint;
}

/**
 * While messages keep coming, a claim that found less than a batch is followed by the next one no
 * sooner than this: a burst then goes out in batches of several ingestions' events (a batch costs
 * about ten commands whatever its size), while a worker that was idle claims at once.
 */
const GATHER_MS = 50;

/** How often a worker trims the change feed and moves its settled position on. */
const CHANGE_LOG_KEPT_EVERY_MS = 60_000;

/** A batch in the worker's hands: how many of its messages have not started (or skipped) their attempt. */
interface Hand {
  unstarted: number;
}

export class DeliveryWorker {
  private readonly collections: Collections;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly sweepGraceMs: number;
  private readonly media: MediaStore;
  private readonly changeRetentionMs: number;
  private lastLogKept = 0;
  private readonly hint: OutboxHint | undefined;
  private readonly slots: Slots;
  private readonly preparer: Preparer;
  private readonly sender: Sender;
  private readonly settler: Settler;
  /** Aborted by stop(): no more claims, no more attempts started. */
  private readonly stopping = new AbortController();
  /** Aborted when stop()'s grace runs out: attempts in flight end at once. */
  private readonly abortInFlight = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly hands = new Set<Hand>();
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** A hint arrived while the loop was busy: look again before sleeping. */
  private hinted = false;
  /** The last claim found fewer messages than a batch: nothing more is due until a hint or a poll. */
  private drained = true;
  /** A batch is being prepared: the next claim waits for it (see run). */
  private preparing = 0;
  /** A claim waited for a batch being prepared: made as soon as it is. */
  private claimWaiting = false;
  /** When the last claim that found messages but less than a batch was made (see GATHER_MS). */
  private lastPartialClaim = Number.NEGATIVE_INFINITY;
  private gatherTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | null = null;
  private lastSweep = 0;
  /** One warning when the database goes away, one info when it is back, and slower polls between. */
  private readonly outage: OutageBackoff;

  constructor(options: WorkerOptions) {
    this.collections = options.collections;
    this.logger = options.logger.child({ component: 'delivery-worker' });
    this.clock = options.clock ?? systemClock;
    const concurrency = options.concurrency ?? 8;
    this.batchSize = options.batchSize ?? 100;
    this.pollMs = options.pollMs ?? 1000;
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.sweepGraceMs = options.sweepGraceMs ?? 10_000;
    this.media = options.media;
    this.changeRetentionMs = options.changeRetentionMs ?? 30 * 24 * 3600_000;
    this.hint = options.hint;
    this.slots = new Slots(concurrency);
    this.outage = new OutageBackoff(this.logger, 'the delivery worker', this.pollMs);
    this.preparer = new Preparer({
      collections: this.collections,
      logger: this.logger,
      clock: this.clock,
      outage: this.outage,
      viewers: new ViewerCache(this.collections, this.clock),
      payloads: new Payloads(this.collections, createExecutor(this.logger)),
    });
    this.settler = new Settler({
      collections: this.collections,
      logger: this.logger,
      onAttempt: options.onAttempt ?? (() => {}),
    });
    if (this.leaseMs <= timeoutMs) throw new Error('the lease must outlast an attempt (leaseMs > timeoutMs)');
    this.sender = new Sender({
      logger: this.logger,
      clock: this.clock,
      egress: options.egress,
      timeoutMs,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      settleMarginMs: Math.min(5_000, (this.leaseMs - timeoutMs) / 2),
      random: options.random ?? Math.random,
      stopping: this.stopping.signal,
      abortInFlight: this.abortInFlight.signal,
    });
  }

  /** Runs until `stop`: claims due messages in batches and sends up to `concurrency` at a time. */
  start(): void {
    if (this.loop) return;
    // Work its app queues (an ingestion, a redelivery) starts at once, not at the next poll.
    this.unsubscribe = this.hint?.onQueued(() => this.nudge()) ?? null;
    this.loop = this.run();
  }

  /** Looks for due work at once: now if the loop sleeps, else before it sleeps again. */
  private nudge(): void {
    if (this.wake) this.wake();
    else this.hinted = true;
  }

  /**
   * Stops claiming and starting attempts (messages not started are handed back), lets attempts in
   * flight finish for up to `graceMs`, then aborts them (their messages are handed back too).
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    this.unsubscribe?.();
    clearTimeout(this.gatherTimer);
    this.wake?.();
    await this.loop;
    const timer = setTimeout(() => this.abortInFlight.abort(), graceMs);
    await Promise.allSettled([...this.inFlight]);
    clearTimeout(timer);
    await this.sender.close();
  }

  /**
   * Finishes pending fan-outs, then claims and delivers batches, one after the other, until none
   * is due. Returns how many messages it handled. (Tests drive a fake clock with it.)
   */
  async runOnce(): Promise<number> {
    await this.sweep();
    let handled = 0;
    for (let batch = await this.claim(); batch.length > 0; batch = await this.claim()) {
      try {
        await this.deliver(batch);
      } catch (error) {
        // Its leases run out and it is tried again.
        this.logger.error({ err: error, messages: batch.length }, 'delivery failed unexpectedly');
      }
      handled += batch.length;
    }
    return handled;
  }

  /**
   * Finishes what processes that died left behind (fan-outs, changes not logged, deletions), then
   * queues the webhook events of changes logged since the last sweep.
   */
  private async sweep(): Promise<void> {
    const now = this.clock.now();
    const fanOuts = await finishPendingFanOuts(this.collections, now, this.sweepGraceMs);
    if (fanOuts > 0) this.logger.info({ meetings: fanOuts }, 'finished pending fan-outs');
    const changes = await finishPendingChanges(this.collections, this.media, now, this.sweepGraceMs);
    if (changes > 0) this.logger.info({ meetings: changes }, 'finished pending changes');
    await queueEventsOfChanges(this.collections, now, this.hint);
  }

  /**
   * Trims the change feed to its retention and moves its settled position on (so that readers
   * start near the end), once a minute at most: what it does is not urgent.
   */
  private async keepChangeLog(): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() - this.lastLogKept < CHANGE_LOG_KEPT_EVERY_MS) return;
    this.lastLogKept = now.getTime();
    const trimmed = await trimLog(this.collections, now, this.changeRetentionMs);
    if (trimmed > 0) this.logger.info({ positions: trimmed }, 'trimmed the change feed to its retention');
    await settledPosition(this.collections, now);
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      try {
        if (performance.now() - this.lastSweep >= this.pollMs) {
          this.lastSweep = performance.now();
          await this.sweep();
          await this.keepChangeLog();
        }
        // Another batch while less than a batch's worth waits for a send slot: the slots do not run
        // dry while it is prepared, and a worker whose sends are stuck claims nothing more.
        while (!signal.aborted && this.unstarted() < this.batchSize) {
          // One batch prepared at a time: what is queued meanwhile is claimed with the next one, so
          // a burst goes out in large batches (fewer commands a message) rather than one per
          // ingestion; an idle worker's batch is claimed at once as before.
          if (this.preparing > 0) {
            this.claimWaiting = true;
            break;
          }
          const gathering = this.lastPartialClaim + GATHER_MS - performance.now();
          if (gathering > 0) {
            this.gatherTimer ??= setTimeout(() => {
              this.gatherTimer = undefined;
              this.nudge();
            }, gathering);
            break;
          }
          const batch = await this.claim();
          this.drained = batch.length < this.batchSize;
          const partial = batch.length > 0 && this.drained;
          this.lastPartialClaim = partial ? performance.now() : Number.NEGATIVE_INFINITY;
          if (batch.length > 0) this.track(batch);
          if (this.drained) break;
        }
        this.outage.succeeded();
      } catch (error) {
        if (!this.outage.failed(error)) this.logger.error({ err: error }, 'delivery worker loop error');
      }
      if (signal.aborted) break;
      if (this.hinted && !this.outage.active) {
        this.hinted = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.outage.delay());
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Delivers a batch in the background, counted among those `stop` waits for. */
  private track(batch: OutboxDoc[]): void {
    const delivery = this.deliver(batch)
      .catch((error: unknown) => {
        // Its leases run out and it is tried again; an outage is the loop's to report.
        if (!this.outage.failed(error))
          this.logger.error({ err: error, messages: batch.length }, 'delivery failed unexpectedly');
      })
      .finally(() => {
        this.inFlight.delete(delivery);
        this.wake?.();
      });
    this.inFlight.add(delivery);
  }

  private unstarted(): number {
    let n = 0;
    for (const hand of this.hands) n += hand.unstarted;
    return n;
  }

  /** Claims up to a batch of due messages under one lease; empty when nothing is due. */
  claim(): Promise<OutboxDoc[]> {
    return claimBatch(this.collections, this.clock.now(), this.leaseMs, this.batchSize);
  }

  /**
   * Delivers a claimed batch: prepares every message (its target, its body, stored), sends those
   * that may go through the send slots, and records every outcome in bulk.
   */
  async deliver(batch: OutboxDoc[]): Promise<void> {
    const hand: Hand = { unstarted: batch.length };
    this.hands.add(hand);
    this.preparing++;
    try {
      const prepared = await this.preparer.prepare(batch).finally(() => {
        this.preparing--;
        if (this.claimWaiting && this.preparing === 0) {
          this.claimWaiting = false;
          this.nudge();
        }
      });
      const sends = prepared.filter((p): p is Send => p !== null && 'body' in p);
      const unsent = prepared.filter((p): p is Settlement => p !== null && !('body' in p));
      hand.unstarted = sends.length;
      const results = await Promise.all(
        sends.map((send) =>
          this.slots.run(() => {
            hand.unstarted--;
            if (!this.drained && this.unstarted() < this.batchSize) this.wake?.();
            return this.sender.attempt(send);
          }),
        ),
      );
      await this.settler.settle(
        [...unsent, ...results.filter((r): r is Settlement => !('entry' in r))],
        results.filter((r): r is Attempted => 'entry' in r),
      );
    } finally {
      this.hands.delete(hand);
    }
  }
}

/** A worker configured from the environment (config.ts), with the egress allow-list. */
export function deliveryWorkerFromConfig(
  collections: Collections,
  config: Config,
  logger: Logger,
  media: MediaStore,
  more: Pick<WorkerOptions, 'clock' | 'onAttempt' | 'hint'> = {},
): DeliveryWorker {
  return new DeliveryWorker({
    collections,
    logger,
    media,
    ...more,
    changeRetentionMs: config.CHANGE_RETENTION_DAYS * 24 * 3600_000,
    egress: new EgressGuard(config.EGRESS_ALLOW_CIDRS),
    concurrency: config.DELIVERY_CONCURRENCY,
    pollMs: config.DELIVERY_POLL_MS,
    leaseMs: config.DELIVERY_LEASE_MS,
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connectTimeoutMs: config.DELIVERY_CONNECT_TIMEOUT_MS,
  });
}
