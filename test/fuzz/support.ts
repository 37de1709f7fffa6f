/**
 * Fuzzing support: the app (startTestApp, demo data) with the REST door reachable, a raw HTTP
 * client that sends what fetch would normalise or refuse (odd paths, methods, header values), and
 * the invariants every answer must hold.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import fc from 'fast-check';
import { createRestDoor } from '../../rest-compat/index.js';
import { loadConfig } from '../../src/config.js';
import { createGraphQLServer } from '../../src/graphql/yoga.js';
import { createMetrics } from '../../src/http/metrics.js';
import { closeGracefully, createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../support/app.js';

export interface FuzzApp {
  t: TestApp;
  /** Serves /external/v1 (the app itself once src/app.ts mounts the REST door). */
  restUrl: string;
  /** The app: /graphql, /healthz. */
  url: string;
  close(): Promise<void>;
}

/** The app, and the REST door over its database when the app does not serve it yet. */
export async function startFuzzApp(): Promise<FuzzApp> {
  // No delivery worker: whatever a fuzzed request queues is never sent anywhere.
  const t = await startTestApp({ DELIVERY_WORKER: 'false' });
  const wired = (await fetch(`${t.url}/external/v1/openapi.json`)).status === 200;
  if (wired) return { t, restUrl: t.url, url: t.url, close: () => t.close() };
  const config = loadConfig({ RATE_LIMIT_GENERAL: '1000000', RATE_LIMIT_HEAVY: '1000000' });
  const logger = createLogger('silent');
  const graphql = createGraphQLServer({
    collections: t.app.database.collections,
    logger,
    corsOrigins: [],
    rateLimits: {
      limits: { general: config.RATE_LIMIT_GENERAL, heavy: config.RATE_LIMIT_HEAVY },
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    },
  });
  const server = createHttpServer([createRestDoor({ graphql, logger })], logger, createMetrics());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const restUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    t,
    restUrl,
    url: t.url,
    async close() {
      await closeGracefully(server, 1000);
      await t.close();
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request through node:http, with the path, method and headers exactly as given (node:http
 * refuses only what HTTP/1.1 cannot carry: control characters in paths and header values).
 */
export function send(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port: Number(port),
        method: options.method ?? 'GET',
        path: options.path,
        // A body always goes with its length: without it a GET's body would read as the next request.
        headers:
          options.body === undefined
            ? options.headers
            : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`timeout: ${options.method} ${options.path}`)));
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/** Bytes straight onto a socket; resolves with the status line's code (0 when the server just closed). */
export function sendRaw(baseUrl: string, bytes: Buffer): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const done = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: match ? Number(match[1]) : 0, text });
    };
    socket.on('close', done);
    socket.on('error', () => {});
    socket.setTimeout(3000, () => socket.destroy());
    socket.write(bytes, () => socket.end());
  });
}

/** Whether a value can go into an HTTP/1.1 header without node:http refusing it. */
export const headerSafe = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

/** A REST answer: never 5xx; an error is `{"error": "<non-empty string>"}` as JSON. */
export function checkRestAnswer(res: RawResponse, method: string, what: string): void {
  const where = `${what} → ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status >= 500 || res.status < 100) throw new Error(`server error: ${where}`);
  if (method === 'HEAD' || res.status === 204 || res.status === 304) return;
  const type = String(res.headers['content-type'] ?? '');
  if (!/^application\/json\b/.test(type)) throw new Error(`not JSON (${type}): ${where}`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new Error(`body is not JSON: ${where}`);
  }
  if (res.status >= 400) {
    const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
    const message = (body as { error?: unknown }).error;
    if (keys.length !== 1 || typeof message !== 'string' || message.length === 0)
      throw new Error(`error body is not {"error": "..."}: ${where}`);
  }
}

/** A GraphQL answer: never 5xx; every error carries extensions.code (and none is INTERNAL_SERVER_ERROR). */
export function checkGraphQLAnswer(res: RawResponse, what: string): void {
  const where = `${what} → ${res.status} ${res.text.slice(0, 400)}`;
  if (res.status >= 500 || res.status < 100) throw new Error(`server error: ${where}`);
  if (res.status === 204 || res.status === 304) return;
  let body: { data?: unknown; errors?: { message?: unknown; extensions?: { code?: unknown } }[] };
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new Error(`body is not JSON: ${where}`);
  }
  if (res.status >= 400 && !(Array.isArray(body.errors) && body.errors.length > 0))
    throw new Error(`an error status without errors: ${where}`);
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code;
    if (typeof code !== 'string' || code.length === 0) throw new Error(`an error without extensions.code: ${where}`);
    if (code === 'INTERNAL_SERVER_ERROR') throw new Error(`an internal error: ${where}`);
    if (typeof error.message !== 'string') throw new Error(`an error without a message: ${where}`);
  }
}

/** The service still answers: /healthz is 200 and a normal query returns meetings. */
export async function checkHealthy(app: FuzzApp, key: string): Promise<void> {
  const health = await fetch(`${app.url}/healthz`);
  if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
  const answer = await app.t.graphql('{ meetings(first: 2) { edges { node { recordingId } } } }', {}, key);
  if (answer.status !== 200 || answer.body.errors || answer.body.data.meetings.edges.length !== 2)
    throw new Error(`a normal query failed afterwards: ${JSON.stringify(answer.body).slice(0, 300)}`);
  const rest = await fetch(`${app.restUrl}/external/v1/meetings?limit=2`, { headers: { 'x-api-key': key } });
  if (rest.status !== 200) throw new Error(`a normal REST request failed afterwards: ${rest.status}`);
}

/** fast-check parameters: bounded runs, a seed from FUZZ_SEED to replay a failure. */
export function fuzzParameters(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  return { numRuns, ...(seed === undefined ? {} : { seed }), endOnFailure: true };
}

// ---------------------------------------------------------------- arbitraries shared by both doors

/** Strings that tend to break parsers: unicode, control characters, encodings, injections, big numbers. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    'true',
    'false',
    'TRUE',
    '0',
    '-1',
    '1e309',
    '9007199254740993',
    '99999999999999999999',
    'NaN',
    '%',
    '%zz',
    '%00',
    '%C0%AF',
    '%FF',
    '..',
    '../..',
    '{"$gt":""}',
    '[object Object]',
    '__proto__',
    'constructor',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '\u0000',
    '\uFEFF',
    '\uD800',
    '😀',
    '2026-13-45T99:99:99Z',
    '2026-01-01T00:00:00',
    '2026-01-01T00:00:00+25:00',
    'x'.repeat(5000),
  ),
);

/** Percent-encodes every byte of the UTF-8 form outside the unreserved set (lone surrogates become U+FFFD). */
export function percentEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A string as it may appear in a request target: percent-encoded, partly encoded, or raw where HTTP allows. */
export const inTarget = (s: string) =>
  fc.constantFrom(
    percentEncode(s),
    s.replace(/[^\x21-\x7e]|[#?&=%]/g, (c) => percentEncode(c)),
    s.replace(/[^\x21-\x7e]/g, (c) => percentEncode(c)),
  );

/**
 * False for strings that name a host to be resolved (an http(s) URL whose host is not an IP literal
 * or localhost): the egress guard would look such a host up in DNS, and fuzzing must not reach
 * beyond this machine. The fuzz apps run no delivery worker either, so nothing is ever sent.
 */
export function staysLocal(value: unknown): boolean {
  if (typeof value === 'string') {
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      return true;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return !/^https?:$/.test(url.protocol) || host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':');
  }
  if (Array.isArray(value)) return value.every(staysLocal);
  if (value && typeof value === 'object') return Object.values(value).every(staysLocal);
  return true;
}

/** URLs for destination fields: never one to resolve (IP literals, localhost, malformed). */
export const localishUrl = fc.oneof(
  fc.constantFrom(
    'http://127.0.0.1:1/hook',
    'https://127.0.0.1/',
    'http://[::1]:9/x',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/',
    'http://localhost:1/',
    'ftp://127.0.0.1/',
    'javascript:alert(1)',
    'http://user:pass@127.0.0.1/',
    'http://',
    '//127.0.0.1/',
    'not a url',
  ),
  nastyString.filter(staysLocal),
);
