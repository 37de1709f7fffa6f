/**
 * One node:http server for every door. It gives each request an id (echoed in `x-request-id` and
 * carried by every log line), routes it, times it for the metrics and logs its outcome.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Logger, withRequestId } from '../logger.js';
import type { Metrics } from './metrics.js';
import { sendJson } from './respond.js';

export interface RequestInfo {
  requestId: string;
  /** Route label for metrics and logs; a door refines it (e.g. `/external/v1/meetings`). */
  route: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, info: RequestInfo) => Promise<void> | void;

export interface Door {
  /** An exact path, or a prefix ending in `/` that the door serves below. */
  path: string;
  handler: Handler;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

function pickRequestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

function findDoor(doors: Door[], pathname: string): Door | undefined {
  return doors.find((d) => (d.path.endsWith('/') ? pathname.startsWith(d.path) : pathname === d.path));
}

export function createHttpServer(
  doors: Door[],
  logger: Logger,
  metrics: Metrics,
  sendTimeoutMs = 30_000,
): Server {
  const server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    const requestId = pickRequestId(req);
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    const door = findDoor(doors, pathname);
    const info: RequestInfo = { requestId, route: door?.path ?? 'unmatched' };
    res.setHeader('x-request-id', requestId);

    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = req.method ?? 'GET';
      metrics.httpRequests.inc({ method, route: info.route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method, route: info.route }, seconds);
      withRequestId(requestId, () =>
        logger.info(
          {
            method,
            route: info.route,
            url: req.url,
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
          },
          'request',
        ),
      );
    });

    withRequestId(requestId, async () => {
      try {
        if (!door) return sendJson(res, 404, { error: `No such path: ${pathname}` });
        await door.handler(req, res, info);
      } catch (error) {
        logger.error({ err: error }, 'unhandled error while serving a request');
        if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
        else res.destroy();
      }
    });
  });
  // Slow clients may not hold a socket forever.
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  // Nor stop reading: a socket idle this long (an answer it does not take) is closed, and the
  // answer's memory freed.
  server.timeout = sendTimeoutMs;
  return server;
}

/** Stops accepting, lets in-flight requests finish within `graceMs`, then cuts what is left. */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
