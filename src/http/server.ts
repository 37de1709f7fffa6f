/**
 * One node:http server for every door. It gives each request an id (echoed in `x-request-id` and
 * carried by every log line), routes it, times it for the metrics and logs its outcome.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Logger, withRequestId } from '../logger.js';
import type { Metrics } from './metrics.js';
import { clientGone, sendJson } from './respond.js';
import { cutStalledAnswers } from './stalled-answers.js';

export interface RequestInfo {
  requestId: string;
  /** Route label for metrics and logs; a door refines it (e.g. `/external/v1/meetings`). */
  route: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, info: RequestInfo) => Promise<void> | void;

export interface Door {
  /** An exact path (`/` included), or a prefix ending in `/` that the door serves below. */
  path: string;
  handler: Handler;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

function pickRequestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

/**
 * Query parameters whose values are secrets or may carry them (a destination URL may hold a token):
 * the request log shows the parameter with its value replaced.
 */
const secretParameter = /key|token|secret|passw|auth|credential|signature|session|url/i;

/** The request target for the log: the path, and the query with secret parameters' values redacted. */
export function redactedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        // a badly encoded name is still matched as written
      }
      return eq >= 0 && secretParameter.test(name) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/**
 * What node's parser lets through but HTTP/1.1 refuses: a request line of another version (llhttp
 * parses `HTTP/2.0` and the version-less HTTP/0.9 `GET /`, answering either as if it were 1.1)
 * and more than one Host header (which proxies and we could read differently).
 */
function framingError(req: IncomingMessage): string | undefined {
  if (req.httpVersion !== '1.1' && req.httpVersion !== '1.0')
    return `HTTP/${req.httpVersion} is not supported here: send HTTP/1.1.`;
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  return hosts > 1 ? 'Send one Host header.' : undefined;
}

/** A whole JSON response written to a socket node's request handling gave up on (CONNECT, parse errors). */
function rawJsonResponse(status: number, error: string, headers: Record<string, string> = {}): string {
  const body = JSON.stringify({ error });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** node's parser errors: the answer to each (what node would send, with a reason). */
function clientErrorAnswer(code: string | undefined, bounds: HttpBounds): { status: number; error: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      status: 431,
      error: 'The request headers are too large: at most 16 KiB in all. Send fewer or shorter headers.',
    };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      error: `The request took too long to arrive: send its headers within ${seconds(bounds.headersTimeoutMs)} and all of it within ${seconds(bounds.requestTimeoutMs)}.`,
    };
  if (code === 'HPE_INVALID_VERSION')
    return { status: 400, error: 'This HTTP version is not supported here: send HTTP/1.1.' };
  return { status: 400, error: 'The request is not valid HTTP/1.1.' };
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function findDoor(doors: Door[], pathname: string): Door | undefined {
  // `/` itself is an exact path (the home page), not a prefix of everything.
  return doors.find((d) =>
    d.path !== '/' && d.path.endsWith('/') ? pathname.startsWith(d.path) : pathname === d.path,
  );
}

/** How long a client may take: to send a request, and to take an answer. */
export interface HttpBounds {
  /** The headers of a request, from the connection or the previous request (408 after). */
  headersTimeoutMs: number;
  /** A whole request, headers and body (408 after). */
  requestTimeoutMs: number;
  /** A connection that neither sends nor reads, or an answer its client takes none of, is cut. */
  sendTimeoutMs: number;
}

const defaultHttpBounds: HttpBounds = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  sendTimeoutMs: 30_000,
};

export function createHttpServer(
  doors: Door[],
  logger: Logger,
  metrics: Metrics,
  given: Partial<HttpBounds> = {},
): Server {
  const bounds = { ...defaultHttpBounds, ...given };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
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
            url: redactedUrl(req.url ?? '/'),
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
          },
          'request',
        ),
      );
    });

    withRequestId(requestId, async () => {
      try {
        // 400, not 505 for a version: a client's mistake is no server error (alerts, soak, fuzzers).
        const refused = framingError(req);
        if (refused) return sendJson(res, 400, { error: refused }, { connection: 'close' });
        if (!door)
          return sendJson(res, 404, {
            error: `No such path: ${pathname}. The API is at /graphql and /external/v1; the home page at / lists every endpoint.`,
          });
        await door.handler(req, res, info);
      } catch (error) {
        if (clientGone(req)) {
          logger.debug({ error: String(error) }, 'the client closed the connection');
          return;
        }
        logger.error({ err: error }, 'unhandled error while serving a request');
        if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
        else res.destroy();
      }
    });
  };
  const server = createServer(
    {
      // Slow clients may not hold a socket forever.
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      // node looks for requests past these bounds only this often (30 s by default): as late as
      // the idle cut below, which then closed a socket that had sent nothing but blank lines
      // without its 408. Checking four times per headers bound (at most every second) answers first.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(bounds.headersTimeoutMs / 4)),
    },
    listener,
  );
  // No door tunnels: without a listener node would drop a CONNECT unanswered.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    logger.debug({ method: req.method, url: redactedUrl(req.url ?? '/') }, 'CONNECT refused');
    metrics.httpRequests.inc({ method: 'CONNECT', route: 'unmatched', status: '405' });
    socket.end(
      rawJsonResponse(405, 'CONNECT is not supported.', { allow: 'GET, HEAD, POST, DELETE, OPTIONS' }),
    );
  });
  // Requests node's parser refuses (a bad request line, an unknown version, headers too large):
  // the same answer node gives, with a JSON body like every other refusal.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // As node does: answer only a connection that has not been answered on (no half-written response).
    if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error.code, bounds);
    logger.debug({ code: error.code, status: answer.status }, 'malformed request refused');
    socket.end(rawJsonResponse(answer.status, answer.error));
  });
  // Nor stop reading: a socket idle this long is closed; an answer its client takes none of is
  // cut by cutStalledAnswers (node's own timer lets a half-written answer live twice as long).
  server.timeout = bounds.sendTimeoutMs;
  cutStalledAnswers(server, bounds.sendTimeoutMs);
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

/** Listens on `port` (0: any) and `host`; resolves with the base URL, e.g. http://127.0.0.1:4000. */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}
