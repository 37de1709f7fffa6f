/**
 * Child process: the *ceiling* baseline. A node:http server that answers each benchmarked request
 * with the very bytes (status, content type and body) the service gave for it, from memory: what
 * serving those responses costs with no work at all behind them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failToParent, serveParent } from './ipc.js';

export interface CannedResponse {
  /** `METHOD /path?query`, as the request line has it. */
  key: string;
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

try {
  const responses = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
  const server = createServer((req, res) => {
    const canned = responses.get(`${req.method} ${req.url}`);
    // Read (and drop) any request body before answering, as a real server must.
    req.resume();
    req.on('end', () => {
      if (!canned) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not canned"}');
        return;
      }
      res.writeHead(canned.status, { ...canned.headers, 'content-length': canned.body.length });
      res.end(canned.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serveParent({
    info: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    calls: {
      set: (canned: CannedResponse) => {
        responses.set(canned.key, {
          status: canned.status,
          headers: canned.headers,
          body: Buffer.from(canned.bodyBase64, 'base64'),
        });
        return true;
      },
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
} catch (error) {
  failToParent(error);
}
