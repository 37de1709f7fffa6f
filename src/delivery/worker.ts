/**
 * The delivery worker: drains the outbox (webhook events, transcript and summary deliveries) and
 * finishes fan-outs left pending. It runs inside the server and alone (`npm run worker`); any
 * number of workers may share one database.
 *
 * - Claim and outcome: under a lease, through the outbox module (src/domain/outbox.ts), which owns
 *   a message's life; a worker that dies holding one loses nothing.
 * - Send: the body is built once (payload.ts), stored, and sent byte for byte; each attempt is
 *   signed afresh (Standard Webhooks) with the current time, through the egress guard, without
 *   following redirects, within the connect and total timeouts.
 * - At least once: a message can reach its receiver more than once (a lease that ran out, a crash
 *   after the request), always with the same `webhook-id`, which receivers use to deduplicate.
 */
import { performance } from 'node:perf_hooks';
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ObjectId } from 'mongodb';
import { Agent, request } from 'undici';
import type { Config } from '../config.js';
import type { Collections } from '../db/collections.js';
import type { AttemptOutcome, OutboxDoc, OutboxStatus, WebhookDoc } from '../db/documents.js';
import { OutageBackoff } from '../db/outage.js';
import { type Clock, systemClock } from '../domain/clock.js';
import { finishPendingFanOuts } from '../domain/content-ready.js';
import {
  claimMessage,
  endUnsent,
  onQueued,
  recordAttempt,
  releaseMessage,
  storeBody,
  trackWebhook,
} from '../domain/outbox.js';
import { signingSecrets } from '../domain/webhooks.js';
import type { Logger } from '../logger.js';
import { EgressGuard } from './egress.js';
import { buildBody } from './payload.js';
import { type AttemptResult, type Decision, decide } from './schedule.js';
import { webhookHeaders } from './signing.js';
import { ViewerCache, type ViewerWithLoaders } from './viewer-cache.js';

export interface WorkerOptions {
  collections: Collections;
  logger: Logger;
  egress: EgressGuard;
  clock?: Clock;
  /** Messages sent at the same time. */
  concurrency?: number;
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
}

const USER_AGENT = 'meetings-gateway-webhooks/1';
/** How much of a response body is read (and thrown away) before the connection is let go. */
const RESPONSE_BODY_LIMIT = 64 * 1024;

/** The delivery worker's spans (a no-op tracer unless src/telemetry.ts started the SDK). */
const tracer = trace.getTracer('meetings-gateway/delivery');

type Target =
  | { send: true; url: string; secrets: string[]; sender: ViewerWithLoaders; webhook: WebhookDoc | null }
  | { send: false; status: Extract<OutboxStatus, 'failed' | 'cancelled'>; reason: string };

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
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly sweepGraceMs: number;
  private readonly random: () => number;
  private readonly onAttempt: NonNullable<WorkerOptions['onAttempt']>;
  private readonly agent: Agent;
  private readonly viewers: ViewerCache;
  /** Aborted by stop(): no more claims. */
  private readonly stopping = new AbortController();
  /** Aborted when stop()'s grace runs out: attempts in flight end at once. */
  private readonly abortInFlight = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** A hint arrived while the loop was busy: look again before sleeping. */
  private hinted = false;
  private unsubscribe: (() => void) | null = null;
  private lastSweep = 0;
  /** One warning when the database goes away, one info when it is back, and slower polls between. */
  private readonly outage: OutageBackoff;

  constructor(options: WorkerOptions) {
    this.collections = options.collections;
    this.logger = options.logger.child({ component: 'delivery-worker' });
    this.egress = options.egress;
    this.clock = options.clock ?? systemClock;
    this.concurrency = options.concurrency ?? 8;
    this.pollMs = options.pollMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.sweepGraceMs = options.sweepGraceMs ?? 10_000;
    this.random = options.random ?? Math.random;
    this.onAttempt = options.onAttempt ?? (() => {});
    this.viewers = new ViewerCache(this.collections, this.clock);
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

  /** Runs until `stop`: polls for due messages and sends up to `concurrency` at a time. */
  start(): void {
    if (this.loop) return;
    // Work queued by this process (an ingestion, a redelivery) starts at once, not at the next poll.
    this.unsubscribe = onQueued(() => {
      if (this.wake) this.wake();
      else this.hinted = true;
    });
    this.loop = this.run();
  }

  /** Stops claiming, lets attempts in flight finish for up to `graceMs`, then aborts them (their leases are released). */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    const timer = setTimeout(() => this.abortInFlight.abort(), graceMs);
    await Promise.allSettled([...this.inFlight]);
    clearTimeout(timer);
    await this.agent.close();
  }

  /**
   * Finishes pending fan-outs, then claims and sends every due message, `concurrency` at a time,
   * until none is due. Returns how many messages it handled. (Tests drive a fake clock with it.)
   */
  async runOnce(): Promise<number> {
    await finishPendingFanOuts(this.collections, this.clock.now(), this.sweepGraceMs);
    let handled = 0;
    const lane = async () => {
      for (let message = await this.claim(); message; message = await this.claim()) {
        try {
          await this.deliver(message);
        } catch (error) {
          // Its lease runs out and it is tried again; the others go on.
          this.logger.error({ err: error, messageId: message.messageId }, 'delivery failed unexpectedly');
        }
        handled++;
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, lane));
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
        while (!signal.aborted && this.inFlight.size < this.concurrency) {
          const message = await this.claim();
          if (!message) break;
          const delivery = this.deliver(message)
            .catch((error: unknown) => {
              // Its lease runs out and it is tried again; an outage is the loop's to report.
              if (!this.outage.failed(error))
                this.logger.error(
                  { err: error, messageId: message.messageId },
                  'delivery failed unexpectedly',
                );
            })
            .finally(() => {
              this.inFlight.delete(delivery);
              this.wake?.();
            });
          this.inFlight.add(delivery);
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

  /** Takes the most overdue pending message and leases it; null when nothing is due. */
  claim(): Promise<OutboxDoc | null> {
    return claimMessage(this.collections, this.clock.now(), this.leaseMs);
  }

  /** Who it is sent as, where, signed with what; or why nothing may be sent any more. */
  private async target(message: OutboxDoc, now: Date): Promise<Target> {
    let webhook: WebhookDoc | null = null;
    if (message.webhookId) {
      webhook = await this.collections.webhooks.findOne({ _id: message.webhookId });
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
    return { send: true, url: message.destinationUrl, secrets, sender, webhook };
  }

  /**
   * One attempt of a leased message, and its outcome, in a span (a no-op unless tracing is on: see
   * src/telemetry.ts) under which the undici instrumentation nests the POST.
   */
  async deliver(message: OutboxDoc): Promise<void> {
    return tracer.startActiveSpan(
      'delivery attempt',
      { attributes: { 'delivery.message_id': message.messageId, 'delivery.kind': message.kind } },
      async (span) => {
        try {
          await this.attempt(message, span);
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  private async attempt(message: OutboxDoc, span: Span): Promise<void> {
    const target = await this.target(message, this.clock.now());
    if (!target.send) {
      await endUnsent(this.collections, message, target.status, target.reason, this.clock.now());
      span.setAttribute('delivery.outcome', target.status);
      this.logger.info({ messageId: message.messageId, reason: target.reason }, `message ${target.status}`);
      return;
    }

    let body = message.body;
    if (body === null) {
      body = await buildBody(
        this.collections,
        message,
        target.sender.viewer,
        target.webhook,
        target.sender.loaders,
      );
      if (body === null) {
        const reason = 'its owner may no longer see the recording';
        await endUnsent(this.collections, message, 'cancelled', reason, this.clock.now());
        span.setAttribute('delivery.outcome', 'cancelled');
        return;
      }
      // The lease ran out meanwhile: another worker has it now.
      if (!(await storeBody(this.collections, message, body))) return;
    }

    const attemptedAt = this.clock.now();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...webhookHeaders(target.secrets, message.messageId, timestamp, body),
    };
    const result = await this.send(target.url, headers, body);
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    if (result.error) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });

    if (this.abortInFlight.signal.aborted && result.status === null) {
      // Stopped mid-attempt: hand the message back at once rather than wait for the lease.
      const released = await releaseMessage(this.collections, message, attemptedAt);
      await this.logAttempt(message, attemptedAt, result, 'retry', released);
      span.setAttribute('delivery.outcome', 'released');
      return;
    }

    const attempts = message.attempts + 1;
    const answeredAt = this.clock.now(); // retries count from the end of the attempt
    const decision = decide(result, attempts, answeredAt, this.random);
    span.setAttributes({ 'delivery.attempt': attempts, 'delivery.outcome': decision.outcome });
    const recorded = await recordAttempt(this.collections, message, {
      outcome: decision.outcome,
      attemptedAt,
      answeredAt,
      retryAt: decision.outcome === 'retry' ? new Date(answeredAt.getTime() + decision.delayMs) : null,
      responseStatus: result.status,
      error: result.error,
    });
    await this.logAttempt(message, attemptedAt, result, decision.outcome, recorded);
    if (recorded) this.onAttempt(message, decision.outcome, answeredAt);
    if (!recorded) {
      this.logger.warn({ messageId: message.messageId }, 'lease ran out before the outcome: not recorded');
      return;
    }
    if (target.webhook) {
      const disabled = await trackWebhook(this.collections, target.webhook, decision.outcome, answeredAt);
      if (disabled)
        this.logger.warn(
          { webhookId: target.webhook._id.toHexString(), reason: disabled },
          'webhook disabled',
        );
    }
    this.logger.info(
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
  }

  private async logAttempt(
    message: OutboxDoc,
    attemptedAt: Date,
    result: AttemptResult,
    outcome: Decision['outcome'],
    recorded: boolean,
  ): Promise<void> {
    await this.collections.deliveryAttempts.insertOne({
      _id: new ObjectId(),
      outboxId: message._id,
      messageId: message.messageId,
      webhookId: message.webhookId,
      attemptedAt,
      durationMs: result.durationMs,
      responseStatus: result.status,
      error: result.error,
      outcome,
      recorded,
    });
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
  more: Pick<WorkerOptions, 'clock' | 'onAttempt'> = {},
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
