/**
 * Prometheus metrics: HTTP traffic by route and status, latency, shed and rate-limited requests,
 * MongoDB commands, and the outbox (messages by status, attempts by outcome, delivery latency).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Collections } from '../db/collections.js';
import type { AttemptOutcome, OutboxKind, OutboxStatus } from '../db/documents.js';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  mongoCommands: Counter<'collection' | 'command'>;
  shedRequests: Counter<'reason'>;
  rateLimitedRequests: Counter<'bucket'>;
  deliveryAttempts: Counter<'kind' | 'outcome'>;
  deliveryLatency: Histogram<'kind'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method and route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    mongoCommands: new Counter({
      name: 'mongodb_commands_total',
      help: 'MongoDB commands sent by the driver, by collection and command name',
      labelNames: ['collection', 'command'],
      registers: [registry],
    }),
    shedRequests: new Counter({
      name: 'http_requests_shed_total',
      help: 'Requests refused at once rather than queued (load shedding), by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    rateLimitedRequests: new Counter({
      name: 'http_requests_rate_limited_total',
      help: 'Requests refused by the per-key rate limits, by bucket',
      labelNames: ['bucket'],
      registers: [registry],
    }),
    deliveryAttempts: new Counter({
      name: 'delivery_attempts_total',
      help: 'Attempts to send an outbox message (webhook event or delivery), by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'delivery_latency_seconds',
      help: 'From a message being queued to its receiver answering 2xx, by kind',
      labelNames: ['kind'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400],
      registers: [registry],
    }),
  };
}

/** Counts one attempt the worker recorded (its outcome, and for a delivered message how long it took). */
export function observeAttempt(
  metrics: Metrics,
  message: { kind: OutboxKind; createdAt: Date },
  outcome: AttemptOutcome,
  answeredAt: Date,
): void {
  metrics.deliveryAttempts.inc({ kind: message.kind, outcome });
  if (outcome === 'delivered')
    metrics.deliveryLatency.observe(
      { kind: message.kind },
      (answeredAt.getTime() - message.createdAt.getTime()) / 1000,
    );
}

/** The statuses worth watching: the backlog, and what gave up (delivered and cancelled only grow). */
const watched: readonly OutboxStatus[] = ['pending', 'failed'];

/**
 * `outbox_messages{status}`: the backlog and the failures, counted in the database when scraped
 * (so every process's work shows), each count served by the (status, nextAttemptAt) index.
 */
export function observeOutbox(metrics: Metrics, collections: Collections): void {
  new Gauge({
    name: 'outbox_messages',
    help: 'Outbox messages pending (the backlog) and failed, in the database (all processes)',
    labelNames: ['status'],
    registers: [metrics.registry],
    async collect() {
      for (const status of watched) this.set({ status }, await collections.outbox.countDocuments({ status }));
    },
  });
}
