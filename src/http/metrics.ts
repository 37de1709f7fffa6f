/** Prometheus metrics: HTTP traffic by route and status, latency, shed requests, MongoDB commands. */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  mongoCommands: Counter<'collection' | 'command'>;
  shedRequests: Counter<'reason'>;
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
  };
}
