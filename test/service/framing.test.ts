/**
 * HTTP framing node's parser lets through or gives up on: every request line and header block an
 * attacker tried gets a status and, where HTTP allows a body, a JSON `{"error"}`. Raw sockets,
 * since no client sends these.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/metrics.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ DELIVERY_WORKER: 'false' });
});
afterAll(() => t.close());

/** Writes `data`, and collects what comes back until the server closes (or 2 s pass). */
function exchange(data: string, url = t.url): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 2000);
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.write(data);
  });
}

function parse(text: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

describe('request framing', () => {
  it('two Host headers: 400', async () => {
    const { text } = await exchange('GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n');
    const res = parse(text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Send one Host header.' });
  });

  // 400, not 505: a client's mistake is no server error (the fuzzers and the soak count 5xx).
  it('HTTP/2.0 in the request line: 400 with a JSON error, connection closed', async () => {
    const { text, closed } = await exchange('GET /healthz HTTP/2.0\r\nHost: a\r\n\r\n');
    const res = parse(text);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/HTTP\/2\.0 is not supported/);
    expect(closed).toBe(true);
  });

  it('a version node’s parser refuses (HTTP/1.2): 400 with a JSON error', async () => {
    const { text, closed } = await exchange('GET /healthz HTTP/1.2\r\nHost: a\r\n\r\n');
    const res = parse(text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'This HTTP version is not supported here: send HTTP/1.1.' });
    expect(closed).toBe(true);
  });

  it('HTTP/0.9 (a request line without a version): 400, connection closed', async () => {
    const { text, closed } = await exchange('GET /healthz\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(parse(text).body.error).toMatch(/HTTP\/0\.9 is not supported/);
    expect(closed).toBe(true);
  });

  it('CONNECT: 405 with Allow and a JSON error, not a dropped connection', async () => {
    const { text, closed } = await exchange(
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    const res = parse(text);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.body).toEqual({ error: 'CONNECT is not supported.' });
    expect(closed).toBe(true);
  });

  it('a GET query string past node’s header limit (16 KiB) is a 431 with a JSON error', async () => {
    const { text } = await exchange(`GET /graphql?query=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    const res = parse(text);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({
      error: 'The request headers are too large: at most 16 KiB in all. Send fewer or shorter headers.',
    });
  });

  it('an ordinary HTTP/1.0 and HTTP/1.1 request still succeed', async () => {
    for (const version of ['1.0', '1.1']) {
      const { text } = await exchange(`GET /healthz HTTP/${version}\r\nHost: a\r\nConnection: close\r\n\r\n`);
      expect(parse(text).status).toBe(200);
    }
  });

  it('a request of blank lines only is answered 408 with a JSON error before the idle cut closes it', async () => {
    // The production bounds scaled down (headers 20 s, request 60 s, idle 30 s): the same order.
    const server = createHttpServer([], createLogger('silent'), createMetrics(), {
      headersTimeoutMs: 400,
      requestTimeoutMs: 1_200,
      sendTimeoutMs: 1_500,
    });
    const url = await listen(server, 0, '127.0.0.1');
    try {
      const { text, closed } = await exchange('\r\n'.repeat(8), url);
      const res = parse(text);
      expect(res.status).toBe(408);
      expect(res.body).toEqual({
        error:
          'The request took too long to arrive: send its headers within 0.4 s and all of it within 1.2 s.',
      });
      expect(closed).toBe(true);
    } finally {
      server.close();
    }
  });
});
