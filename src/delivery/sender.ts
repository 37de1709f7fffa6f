/**
 * Sending a prepared message: one attempt, whose answer the retry schedule decides
 * (src/domain/retry-schedule.ts).
 *
 * - Within the lease: an attempt starts only if it and its batch's outcome fit in the lease left;
 *   otherwise the message is handed back unsent, as it is when the worker is stopping.
 * - Send: the stored body is sent byte for byte; each attempt is signed afresh (Standard Webhooks)
 *   with the current time, through the egress guard, without following redirects, within the
 *   connect and total timeouts. An attempt in flight when the worker's grace runs out is aborted
 *   and its message handed back at once.
 */
import { performance } from 'node:perf_hooks';
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ObjectId } from 'mongodb';
import { Agent, request } from 'undici';
import type { DeliveryAttemptDoc, WebhookDoc } from '../db/documents.js';
import type { Clock } from '../domain/clock.js';
import type { Settlement } from '../domain/outbox.js';
import { type AttemptResult, decide } from '../domain/retry-schedule.js';
import type { Logger } from '../logger.js';
import type { EgressGuard } from './egress.js';
import type { Send } from './preparation.js';
import { webhookHeaders } from './signing.js';

const USER_AGENT = 'meetings-gateway-webhooks/1';
/** How much of a response body is read (and thrown away) before the connection is let go. */
const RESPONSE_BODY_LIMIT = 64 * 1024;

/** The delivery worker's spans (a no-op tracer unless src/telemetry.ts started the SDK). */
const tracer = trace.getTracer('meetings-gateway/delivery');

/** An attempt made: what it does to its message, and its entry in `deliveryAttempts`. */
export interface Attempted {
  settlement: Settlement;
  entry: Omit<DeliveryAttemptDoc, 'recorded'>;
  webhook: WebhookDoc | null;
}

export interface SenderOptions {
  logger: Logger;
  clock: Clock;
  egress: EgressGuard;
  /** Total time of one attempt. */
  timeoutMs: number;
  /** Time to connect (at most timeoutMs). */
  connectTimeoutMs: number;
  /** Lease an attempt must leave for its batch's outcome write. */
  settleMarginMs: number;
  /** For the retry jitter. */
  random: () => number;
  /** Aborted when the worker stops: no more attempts started. */
  stopping: AbortSignal;
  /** Aborted when the worker's grace runs out: attempts in flight end at once. */
  abortInFlight: AbortSignal;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}

export class Sender {
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly settleMarginMs: number;
  private readonly random: () => number;
  private readonly stopping: AbortSignal;
  private readonly abortInFlight: AbortSignal;
  private readonly agent: Agent;

  constructor(options: SenderOptions) {
    this.logger = options.logger;
    this.clock = options.clock;
    this.timeoutMs = options.timeoutMs;
    this.settleMarginMs = options.settleMarginMs;
    this.random = options.random;
    this.stopping = options.stopping;
    this.abortInFlight = options.abortInFlight;
    const connectTimeout = Math.min(options.connectTimeoutMs, this.timeoutMs);
    this.agent = new Agent({
      connect: options.egress.connector(connectTimeout),
      // The attempt's total timeout (send) is what cuts it; undici's own, timed coarsely (to about
      // a second), only back it up: equal to it, they sometimes fired first.
      headersTimeout: this.timeoutMs + 2_000,
      bodyTimeout: this.timeoutMs + 2_000,
      keepAliveTimeout: 4_000,
      connections: 16,
    });
  }

  /** Lets the connections go (once the attempts in flight are over). */
  close(): Promise<void> {
    return this.agent.close();
  }

  /**
   * One attempt, in a span (a no-op unless tracing is on: see src/telemetry.ts) under which the
   * undici instrumentation nests the POST; or the message handed back unsent when the worker is
   * stopping or the lease left is too short for the attempt and its batch's outcome.
   */
  async attempt(send: Send): Promise<Attempted | Settlement> {
    const { message } = send;
    const now = this.clock.now();
    const leaseLeft = message.leaseExpiresAt!.getTime() - now.getTime();
    if (this.stopping.aborted || leaseLeft < this.timeoutMs + this.settleMarginMs)
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

    if (this.abortInFlight.aborted && result.status === null) {
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
    this.abortInFlight.addEventListener('abort', onStop, { once: true });
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
      else if (this.abortInFlight.aborted) reason = 'aborted: the worker stopped';
      return { status: null, retryAfter: null, error: reason, durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
      this.abortInFlight.removeEventListener('abort', onStop);
    }
  }
}
