/**
 * The delivery worker: drains the outbox (webhook events, transcript and summary deliveries) and
 * finishes fan-outs left pending. It runs inside the server and alone (`npm run worker`); any
 * number of workers may share one database.
 *
 * - In batches: up to `batchSize` due messages are claimed under one lease (src/domain/outbox.ts,
 *   which owns a message's life), prepared together (one read of their webhooks; owners, meetings
 *   and content through loaders shared for a second), sent through the worker's `concurrency` send
 *   slots, and settled together: one bulk write for their outcomes, one insert for their attempts.
 *   The next batch is claimed while the last sends of the previous one are out, but not while
 *   another is being prepared: what is queued meanwhile joins the next batch.
 * - Within the lease: an attempt starts only if it and its batch's outcome fit in the lease left;
 *   otherwise the message is handed back unsent. A worker that dies holding a batch loses nothing:
 *   its messages are due again when the lease runs out, and its late outcomes are not recorded.
 * - Send: the body is built once (payload.ts), stored before the first attempt, and sent byte for
 *   byte; each attempt is signed afresh (Standard Webhooks) with the current time, through the
 *   egress guard, without following redirects, within the connect and total timeouts.
 * - At least once: a message can reach its receiver more than once (a lease that ran out, a crash
 *   after the request), always with the same `webhook-id`, which receivers use to deduplicate.
 */
import { performance } from 'node:perf_hooks';
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ObjectId } from 'mongodb';
import { Agent, request } from 'undici';
import type { Config } from '../config.js';
import type { Collections } from '../db/collections.js';
import type {
  AttemptOutcome,
  DeliveryAttemptDoc,
  OutboxDoc,
  OutboxStatus,
  WebhookDoc,
} from '../db/documents.js';
import { OutageBackoff } from '../db/outage.js';
import { type Clock, systemClock } from '../domain/clock.js';
import { finishPendingFanOuts } from '../domain/content-ready.js';
import {
  claimBatch,
  type OutboxHint,
  type Settlement,
  settleBatch,
  storeBodies,
  trackWebhook,
} from '../domain/outbox.js';
import { type AttemptResult, decide } from '../domain/retry-schedule.js';
import { signingSecrets } from '../domain/webhooks.js';
import { createExecutor } from '../graphql/execution.js';
import type { Logger } from '../logger.js';
import { EgressGuard } from './egress.js';
import { Payloads } from './payload.js';
import { webhookHeaders } from './signing.js';
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
  /** A pending fan-out younger than this is left to the process that is doing it. */
  sweepGraceMs?: number;
  /** For the retry jitter. */
  random?: () => number;
  /** Told of every attempt whose outcome was recorded (metrics). */
  onAttempt?: (message: OutboxDoc, outcome: AttemptOutcome, answeredAt: Date) => void;
  /**
   * The hint of the app it works for (src/app.ts): what that app queues due now starts at once.
   * Without one it finds work by polling only (`npm run worker`, another process's work).
   */
  hint?: OutboxHint;
}

const USER_AGENT = 'meetings-gateway-webhooks/1';
/** How much of a response body is read (and thrown away) before the connection is let go. */
const RESPONSE_BODY_LIMIT = 64 * 1024;

/**
 * While messages keep coming, a claim that found less than a batch is followed by the next one no
 * sooner than this: a burst then goes out in batches of several ingestions' events (a batch costs
 * about ten commands whatever its size), while a worker that was idle claims at once.
 */
const GATHER_MS = 50;

/** The delivery worker's spans (a no-op tracer unless src/telemetry.ts started the SDK). */
const tracer = trace.getTracer('meetings-gateway/delivery');

type Target =
  | { send: true; url: string; secrets: string[]; webhook: WebhookDoc | null }
  | { send: false; status: Extract<OutboxStatus, 'failed' | 'cancelled'>; reason: string };

/** A claimed message about to be sent. */
interface Send {
  message: OutboxDoc;
  url: string;
  secrets: string[];
  body: string;
  webhook: WebhookDoc | null;
}

/** An attempt made: what it does to its message, and its entry in `deliveryAttempts`. */
interface Attempted {
  settlement: Settlement;
  entry: Omit<DeliveryAttemptDoc, 'recorded'>;
  webhook: WebhookDoc | null;
}

/** A batch in the worker's hands: how many of its messages have not started (or skipped) their attempt. */
interface Hand {
  unstarted: number;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}

export class DeliveryWorker {
  private readonly collections: Collections;
  private readonly logger: Logger;
  private readonly egress: EgressGuard;
  private readonly clock: Clock;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  /** Lease an attempt must leave for its batch's outcome write. */
  private readonly settleMarginMs: number;
  private readonly sweepGraceMs: number;
  private readonly random: () => number;
  private readonly onAttempt: NonNullable<WorkerOptions['onAttempt']>;
  private readonly hint: OutboxHint | undefined;
  private readonly agent: Agent;
  private readonly slots: Slots;
  private readonly viewers: ViewerCache;
  private readonly payloads: Payloads;
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
    this.egress = options.egress;
    this.clock = options.clock ?? systemClock;
    const concurrency = options.concurrency ?? 8;
    this.batchSize = options.batchSize ?? 100;
    this.pollMs = options.pollMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.settleMarginMs = Math.min(5_000, (this.leaseMs - this.timeoutMs) / 2);
    this.sweepGraceMs = options.sweepGraceMs ?? 10_000;
    this.random = options.random ?? Math.random;
    this.onAttempt = options.onAttempt ?? (() => {});
    this.hint = options.hint;
    this.slots = new Slots(concurrency);
    this.viewers = new ViewerCache(this.collections, this.clock);
    this.payloads = new Payloads(this.collections, createExecutor(this.logger));
    this.outage = new OutageBackoff(this.logger, 'the delivery worker', this.pollMs);
    if (this.leaseMs <= this.timeoutMs)
      throw new Error('the lease must outlast an attempt (leaseMs > timeoutMs)');
    const connectTimeout = Math.min(options.connectTimeoutMs ?? 5_000, this.timeoutMs);
    this.agent = new Agent({
      connect: this.egress.connector(connectTimeout),
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4_000,
      connections: 16,
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
    await this.agent.close();
  }

  /**
   * Finishes pending fan-outs, then claims and delivers batches, one after the other, until none
   * is due. Returns how many messages it handled. (Tests drive a fake clock with it.)
   */
  async runOnce(): Promise<number> {
    await finishPendingFanOuts(this.collections, this.clock.now(), this.sweepGraceMs);
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

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      try {
        if (performance.now() - this.lastSweep >= this.pollMs) {
          this.lastSweep = performance.now();
          const swept = await finishPendingFanOuts(this.collections, this.clock.now(), this.sweepGraceMs);
          if (swept > 0) this.logger.info({ meetings: swept }, 'finished pending fan-outs');
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
      const prepared = await this.prepare(batch).finally(() => {
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
            return this.attempt(send);
          }),
        ),
      );
      await this.settle(
        [...unsent, ...results.filter((r): r is Settlement => !('entry' in r))],
        results.filter((r): r is Attempted => 'entry' in r),
      );
    } finally {
      this.hands.delete(hand);
    }
  }

  /**
   * Each message of a batch as a send, or settled without one; null when preparing it failed (it
   * stays leased and is tried again when the lease runs out). Bodies built now are stored before
   * anything is sent.
   */
  private async prepare(batch: OutboxDoc[]): Promise<(Send | Settlement | null)[]> {
    const now = this.clock.now();
    const webhooks = await this.webhooksOf(batch);
    const targets = await Promise.all(
      batch.map((message) => this.guarded(message, () => this.target(message, webhooks, now))),
    );
    // Every body is built in the same turn, so that the loaders read each kind of content once for
    // the whole batch rather than once per recording.
    const prepared = await Promise.all(
      batch.map(async (message, i): Promise<Send | Settlement | null> => {
        const target = targets[i];
        if (!target) return null;
        if (!target.send) {
          this.logger.info(
            { messageId: message.messageId, reason: target.reason },
            `message ${target.status}`,
          );
          return { message, unsent: target.status, reason: target.reason, at: now };
        }
        const body =
          message.body ?? (await this.guarded(message, () => this.buildBody(message, target.webhook)));
        if (body === undefined) return null;
        if (body === null)
          return {
            message,
            unsent: 'cancelled',
            reason: 'its owner may no longer see the recording',
            at: now,
          };
        return { message, url: target.url, secrets: target.secrets, body, webhook: target.webhook };
      }),
    );
    await storeBodies(
      this.collections,
      prepared.filter((p): p is Send => p !== null && 'body' in p && p.message.body === null),
    );
    return prepared;
  }

  /** `work` for one message; undefined when it failed (logged): the message stays leased and is tried again when the lease runs out. */
  private async guarded<T>(message: OutboxDoc, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      if (!this.outage.failed(error))
        this.logger.error({ err: error, messageId: message.messageId }, 'delivery failed unexpectedly');
      return undefined;
    }
  }

  /** The webhooks of a batch's events, by id (one read). */
  private async webhooksOf(batch: OutboxDoc[]): Promise<Map<string, WebhookDoc>> {
    const ids = new Map(
      batch.flatMap((m) => (m.webhookId ? [[m.webhookId.toHexString(), m.webhookId]] : [])),
    );
    if (ids.size === 0) return new Map();
    const docs = await this.collections.webhooks.find({ _id: { $in: [...ids.values()] } }).toArray();
    return new Map(docs.map((w) => [w._id.toHexString(), w]));
  }

  /** Where it goes, signed with what; or why nothing may be sent any more. */
  private async target(message: OutboxDoc, webhooks: Map<string, WebhookDoc>, now: Date): Promise<Target> {
    let webhook: WebhookDoc | null = null;
    if (message.webhookId) {
      webhook = webhooks.get(message.webhookId.toHexString()) ?? null;
      if (!webhook) return { send: false, status: 'cancelled', reason: 'the webhook was deleted' };
      if (webhook.disabledAt)
        return {
          send: false,
          status: 'failed',
          reason: `the webhook is disabled (${webhook.disabledReason})`,
        };
    }
    const sender = await this.viewers.get(message.requestedBy);
    if (!sender) return { send: false, status: 'cancelled', reason: 'its owner is no longer an active user' };
    // The sender's meetings loader applies the visibility rules.
    const meeting = await sender.loaders.meetings.load(message.recordingId);
    if (!meeting)
      return { send: false, status: 'cancelled', reason: 'its owner may no longer see the recording' };
    const secrets = webhook ? signingSecrets(webhook, now) : [];
    return { send: true, url: message.destinationUrl, secrets, webhook };
  }

  /** The body of a message's first attempt, as its sender sees the recording; null when they may not. */
  private async buildBody(message: OutboxDoc, webhook: WebhookDoc | null): Promise<string | null> {
    const sender = await this.viewers.get(message.requestedBy);
    if (!sender) return null;
    return this.payloads.build(message, sender.viewer, webhook, sender.loaders);
  }

  /**
   * One attempt, in a span (a no-op unless tracing is on: see src/telemetry.ts) under which the
   * undici instrumentation nests the POST; or the message handed back unsent when the worker is
   * stopping or the lease left is too short for the attempt and its batch's outcome.
   */
  private async attempt(send: Send): Promise<Attempted | Settlement> {
    const { message } = send;
    const now = this.clock.now();
    const leaseLeft = message.leaseExpiresAt!.getTime() - now.getTime();
    if (this.stopping.signal.aborted || leaseLeft < this.timeoutMs + this.settleMarginMs)
      return { message, release: now, attemptId: null };
    return tracer.startActiveSpan(
      'delivery attempt',
      { attributes: { 'delivery.message_id': message.messageId, 'delivery.kind': message.kind } },
      async (span) => {
        try {
          return await this.post(send, span);
        } finally {
          span.end();
        }
      },
    );
  }

  private async post(send: Send, span: Span): Promise<Attempted> {
    const { message, body } = send;
    const attemptedAt = this.clock.now();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...webhookHeaders(send.secrets, message.messageId, timestamp, body),
    };
    const result = await this.send(send.url, headers, body);
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    if (result.error) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
    const id = new ObjectId();
    const entry = {
      _id: id,
      outboxId: message._id,
      messageId: message.messageId,
      webhookId: message.webhookId,
      attemptedAt,
      durationMs: result.durationMs,
      responseStatus: result.status,
      error: result.error,
    };

    if (this.abortInFlight.signal.aborted && result.status === null) {
      // Stopped mid-attempt: hand the message back at once rather than wait for the lease.
      span.setAttribute('delivery.outcome', 'released');
      return {
        settlement: { message, release: attemptedAt, attemptId: id },
        entry: { ...entry, outcome: 'retry' },
        webhook: null,
      };
    }

    const attempts = message.attempts + 1;
    const answeredAt = this.clock.now(); // retries count from the end of the attempt
    const decision = decide(result, attempts, answeredAt, this.random);
    span.setAttributes({ 'delivery.attempt': attempts, 'delivery.outcome': decision.outcome });
    // A delivered attempt is kept in deliveryAttempts and counted in /metrics: its log line is for
    // debugging (at a thousand deliveries a second, info lines alone cost the worker 6% of its time).
    this.logger[decision.outcome === 'delivered' ? 'debug' : 'info'](
      {
        messageId: message.messageId,
        kind: message.kind,
        attempt: attempts,
        status: result.status,
        ms: result.durationMs,
        outcome: decision.outcome,
        error: result.error ?? undefined,
      },
      'delivery attempt',
    );
    const retryAt = decision.outcome === 'retry' ? new Date(answeredAt.getTime() + decision.delayMs) : null;
    return {
      settlement: {
        message,
        attempt: {
          id,
          outcome: decision.outcome,
          attemptedAt,
          answeredAt,
          retryAt,
          responseStatus: result.status,
          error: result.error,
        },
      },
      entry: { ...entry, outcome: decision.outcome },
      webhook: send.webhook,
    };
  }

  /**
   * Records a batch: every outcome in one bulk write, every attempt in one insert (with whether
   * its outcome was recorded), then what the recorded outcomes do to their webhooks, in the order
   * the answers came.
   */
  private async settle(settlements: Settlement[], attempted: Attempted[]): Promise<void> {
    const recorded = await settleBatch(this.collections, [
      ...settlements,
      ...attempted.map((a) => a.settlement),
    ]);
    if (attempted.length > 0)
      await this.collections.deliveryAttempts.insertMany(
        attempted.map((a) => ({ ...a.entry, recorded: recorded.has(a.entry._id.toHexString()) })),
        { ordered: false },
      );
    const byAnswer = (a: Attempted) =>
      'attempt' in a.settlement ? a.settlement.attempt.answeredAt.getTime() : 0;
    for (const { settlement, entry, webhook } of attempted.sort((a, b) => byAnswer(a) - byAnswer(b))) {
      if (!recorded.has(entry._id.toHexString())) {
        this.logger.warn({ messageId: entry.messageId }, 'lease ran out before the outcome: not recorded');
        continue;
      }
      if (!('attempt' in settlement)) continue;
      const { outcome, answeredAt } = settlement.attempt;
      this.onAttempt(settlement.message, outcome, answeredAt);
      if (!webhook) continue;
      const disabled = await trackWebhook(this.collections, webhook, outcome, answeredAt);
      if (disabled)
        this.logger.warn({ webhookId: webhook._id.toHexString(), reason: disabled }, 'webhook disabled');
    }
  }

  /** One POST through the guarded agent, within the total timeout; never throws. */
  private async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // One controller for both ends of an attempt: the total timeout and the worker stopping.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    const onStop = () => controller.abort(new Error('aborted: the worker stopped'));
    this.abortInFlight.signal.addEventListener('abort', onStop, { once: true });
    const { signal } = controller;
    try {
      const protocol = new URL(url).protocol;
      if (protocol !== 'http:' && protocol !== 'https:') throw new Error('only http and https are allowed');
      const response = await request(url, { method: 'POST', headers, body, dispatcher: this.agent, signal });
      try {
        await response.body.dump({ limit: RESPONSE_BODY_LIMIT, signal });
      } catch {
        // The status is what counts; a body that breaks off changes nothing.
      }
      const status = response.statusCode;
      const retryAfter = response.headers['retry-after'];
      return {
        status,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : (retryAfter?.[0] ?? null),
        error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
        durationMs: elapsed(),
      };
    } catch (error) {
      let reason = describeError(error);
      if (timedOut) reason = `timed out after ${this.timeoutMs} ms`;
      else if (this.abortInFlight.signal.aborted) reason = 'aborted: the worker stopped';
      return { status: null, retryAfter: null, error: reason, durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
      this.abortInFlight.signal.removeEventListener('abort', onStop);
    }
  }
}

/** A worker configured from the environment (config.ts), with the egress allow-list. */
export function deliveryWorkerFromConfig(
  collections: Collections,
  config: Config,
  logger: Logger,
  more: Pick<WorkerOptions, 'clock' | 'onAttempt' | 'hint'> = {},
): DeliveryWorker {
  return new DeliveryWorker({
    collections,
    logger,
    ...more,
    egress: new EgressGuard(config.EGRESS_ALLOW_CIDRS),
    concurrency: config.DELIVERY_CONCURRENCY,
    pollMs: config.DELIVERY_POLL_MS,
    leaseMs: config.DELIVERY_LEASE_MS,
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connectTimeoutMs: config.DELIVERY_CONNECT_TIMEOUT_MS,
  });
}
