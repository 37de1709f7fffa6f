/** The operational endpoints: liveness, readiness and Prometheus metrics. */
import type { Database } from '../db/connection.js';
import type { Metrics } from './metrics.js';
import { sendJson, sendText } from './respond.js';
import type { Door } from './server.js';

export function operationalDoors(database: Database, metrics: Metrics): Door[] {
  return [
    { path: '/healthz', handler: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
    {
      path: '/readyz',
      handler: async (_req, res) => {
        const ready = await database.ping();
        sendJson(res, ready ? 200 : 503, ready ? { status: 'ready' } : { error: 'database unreachable' });
      },
    },
    {
      path: '/metrics',
      handler: async (_req, res) => {
        sendText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
      },
    },
  ];
}
