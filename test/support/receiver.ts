/**
 * A webhook and delivery receiver for tests: a real node:http server on 127.0.0.1 (which the
 * tests' EGRESS_ALLOW_CIDRS lets the egress guard reach) that records every request and answers
 * as told per path (200 unless told otherwise).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Real time of arrival (ms). */
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Hold the answer this long (ms). */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What a path answers (default 200). */
  respond(path: string, reply: Reply | ((r: Received) => Reply)): void;
  at(path: string): Received[];
  /** Resolves when `path` (or any path) has received `count` requests. */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const replies = new Map<string, Reply | ((r: Received) => Reply)>();
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      for (const w of waiters) w();
      const configured = replies.get(request.path) ?? { status: 200 };
      const reply = typeof configured === 'function' ? configured(request) : configured;
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end('ok');
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respond: (path, reply) => void replies.set(path, reply),
    at,
    waitFor(count, path, timeoutMs = 20_000) {
      const seen = () => (path ? at(path) : received);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (seen().length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(seen());
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited for ${count} request(s) at ${path ?? 'any path'}, got ${seen().length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
