/**
 * Fuzzing support: the app (startTestApp, demo data, no delivery worker), a raw HTTP
 * client that sends what fetch would normalise or refuse (odd paths, methods, header values), the
 * invariants every answer of either door must hold, and arbitraries both doors' fuzzers share.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../support/app.js';

/** The app on the demo data; no delivery worker, so whatever a fuzzed request queues is never sent. */
export function startFuzzApp(env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({ ...env, DELIVERY_WORKER: 'false' });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request through node:http, with the path, method and headers exactly as given (node:http
 * refuses only what HTTP/1.1 cannot carry: control characters in paths and header values).
 * A streamed answer (server-sent events, multipart/mixed: a live subscription never ends) is read
 * for `streamMs` at most, then the connection is closed.
 */
export function send(
  baseUrl: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    streamMs?: number;
  },
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
        // Compressed answers (Accept-Encoding is among the fuzzed headers) are read as a client would.
        const decode = (bytes: Buffer) => {
          const encoding = res.headers['content-encoding'];
          if (encoding === 'br') return brotliDecompressSync(bytes);
          if (encoding === 'gzip') return gunzipSync(bytes);
          return bytes;
        };
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: decode(Buffer.concat(chunks)).toString('utf8'),
          });
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', done);
        res.on('error', reject);
        if (/^(text\/event-stream|multipart\/mixed)/i.test(String(res.headers['content-type'] ?? ''))) {
          const cut = setTimeout(() => {
            done();
            req.destroy();
          }, options.streamMs ?? 150);
          res.on('close', () => clearTimeout(cut));
        }
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

/** One error of a GraphQL answer, as serialised. */
export interface GraphQLErrorJson {
  message?: unknown;
  path?: unknown;
  extensions?: { code?: unknown; http?: { status?: unknown }; [key: string]: unknown };
}

/** One GraphQL result: a JSON body, one server-sent event or one multipart part. */
export interface GraphQLPayload {
  data?: unknown;
  errors?: GraphQLErrorJson[];
}

/** The HTTP status each of our codes carries (docs/api/graphql.md: "Errors carry extensions.code ... and set the HTTP status"). */
const statusOfCode: Record<string, number> = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  OPERATION_RESOLUTION_FAILURE: 400,
  OPERATION_LIMIT_EXCEEDED: 400,
};

/** Codes of a document refused before execution: it does not parse or validate (Armor's limits are validation rules). */
const documentCodes = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_LIMIT_EXCEEDED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
]);

/** What must never reach a client: stack frames, file paths, driver errors, raw runtime errors. */
const leaks: readonly RegExp[] = [
  /\n\s+at \S/,
  /\bat (?:async )?[\w$.<>[\] ]+ \((?:file:|node:|\/)/,
  /node_modules/,
  /"stack"\s*:/,
  /file:\/\//,
  /Mongo\w*Error|E11000|BSON\w*Error|ECONNREFUSED/,
  /Cannot read propert|is not a function|Maximum call stack/,
  /Unexpected error\./,
];

/** Throws when the text carries anything of `leaks` or the working directory. */
export function checkNoLeak(text: string, where: string): void {
  for (const leak of leaks) if (leak.test(text)) throw new Error(`leaks ${leak}: ${where}`);
  if (text.includes(process.cwd())) throw new Error(`leaks the working directory: ${where}`);
}

function payloadsOf(res: RawResponse, type: string, where: string): GraphQLPayload[] {
  const parse = (json: string): GraphQLPayload => {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      throw new Error(`body is not JSON: ${where}`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`not a GraphQL result object: ${where}`);
    return value as GraphQLPayload;
  };
  if (/^text\/event-stream/i.test(type)) {
    // Events end with a blank line (what follows the last one is an event cut short by `send`);
    // `next` events carry one result as `data:` lines.
    return res.text
      .split(/\n\n/)
      .slice(0, -1)
      .filter((event) => /^event: next$/m.test(event))
      .map((event) =>
        parse(
          event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n'),
        ),
      );
  }
  if (/^multipart\/mixed/i.test(type)) {
    // Parts start with a `---` boundary; the last part is complete only once the closing `-----` came.
    const parts = res.text.split(/\r?\n---/);
    if (!/\r?\n-----\s*$/.test(res.text)) parts.pop();
    return parts
      .map((part) =>
        part
          .split(/\r?\n\r?\n/)
          .slice(1)
          .join('\n\n')
          .trim(),
      )
      .filter((json) => json.startsWith('{'))
      .map(parse);
  }
  if (/^application\/(graphql-response\+)?json\b/i.test(type)) return [parse(res.text)];
  throw new Error(`not JSON (${type || 'no content type'}): ${where}`);
}

/**
 * A GraphQL answer. Never a 5xx; the body is JSON (or GraphiQL's page for a browser's GET, or
 * events of JSON results on a stream); every error has a message, a string `extensions.code` and
 * an `extensions.http.status` of 4xx (the one its code implies), the response's status is the
 * highest of them (200 without errors), and nothing internal leaks. Returns the results.
 */
export function checkGraphQLAnswer(res: RawResponse, method: string, what: string): GraphQLPayload[] {
  const where = `${what} → ${res.status} ${res.text.slice(0, 500)}`;
  if (res.status >= 500 || res.status < 100) throw new Error(`server error: ${where}`);
  if (!res.headers['x-request-id']) throw new Error(`no x-request-id: ${where}`);
  if (method === 'HEAD') return [];
  const type = String(res.headers['content-type'] ?? '');
  if (/^text\/html/i.test(type)) {
    // GraphiQL (a static bundle), for a browser that asked for a page.
    if (method !== 'GET' || res.status !== 200) throw new Error(`an HTML answer: ${where}`);
    return [];
  }
  checkNoLeak(res.text, where);
  const streamed = /^(text\/event-stream|multipart\/mixed)/i.test(type);
  const payloads = payloadsOf(res, type, where);
  if (!streamed && payloads.length !== 1) throw new Error(`not one result: ${where}`);
  const statuses: number[] = [];
  for (const payload of payloads) {
    if (!('data' in payload) && !('errors' in payload)) throw new Error(`neither data nor errors: ${where}`);
    if ('errors' in payload && !(Array.isArray(payload.errors) && payload.errors.length > 0))
      throw new Error(`errors is not a non-empty list: ${where}`);
    for (const error of payload.errors ?? []) {
      const code = error.extensions?.code;
      const status = error.extensions?.http?.status;
      if (typeof error.message !== 'string' || error.message.length === 0)
        throw new Error(`an error without a message: ${where}`);
      if (typeof code !== 'string' || code.length === 0)
        throw new Error(`an error without extensions.code: ${where}`);
      if (typeof status !== 'number' || status < 400 || status > 499)
        throw new Error(`an error without a 4xx extensions.http.status: ${where}`);
      if (code in statusOfCode && statusOfCode[code] !== status)
        throw new Error(`${code} with extensions.http.status ${status}: ${where}`);
      statuses.push(status);
    }
  }
  const expected = statuses.length > 0 ? Math.max(...statuses) : 200;
  // docs/api/graphql.md: a client accepting application/json gets 200 for a document that does not parse or
  // validate (GraphQL over HTTP), extensions.http.status still 400; Yoga does so for a missing query too.
  const refusedDocument =
    /^application\/json/i.test(type) &&
    payloads.every(
      (p) =>
        !('data' in p) &&
        (p.errors ?? []).every((e) => e.path === undefined && documentCodes.has(String(e.extensions?.code))),
    );
  // A stream may have been answered 200 before its first event came.
  if (res.status !== expected && !(res.status === 200 && (streamed || refusedDocument)))
    throw new Error(`status ${res.status}, but the errors say ${expected}: ${where}`);
  if (res.status >= 400 && statuses.length === 0) throw new Error(`an error status without errors: ${where}`);
  return payloads;
}

/** The service still answers: /healthz is 200 and a normal query returns meetings. */
export async function checkHealthy(app: TestApp, key: string): Promise<void> {
  const health = await fetch(`${app.url}/healthz`);
  if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
  const answer = await app.graphql('{ meetings(first: 2) { edges { node { recordingId } } } }', {}, key);
  if (answer.status !== 200 || answer.body.errors || answer.body.data.meetings.edges.length !== 2)
    throw new Error(`a normal query failed afterwards: ${JSON.stringify(answer.body).slice(0, 300)}`);
  const rest = await fetch(`${app.url}/external/v1/meetings?limit=2`, { headers: { 'x-api-key': key } });
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
    return (
      !/^https?:$/.test(url.protocol) || host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':')
    );
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

/**
 * http(s) URLs whose host is a loopback, private, link-local, CGNAT, unspecified or metadata
 * address, written in the forms URL parsers accept (dotted, decimal, hex, octal, IPv6 and its
 * IPv4-mapped forms, localhost): the egress guard must refuse every one, and none is looked up.
 */
export const privateUrl: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      fc.constantFrom(
        '127.0.0.1',
        '127.1',
        '0.0.0.0',
        '0',
        '2130706433',
        '0x7f000001',
        '0x7f.0.0.1',
        '0177.0.0.1',
        '169.254.169.254',
        '169.254.170.2',
        '100.100.100.200',
        '168.63.129.16',
        '[::1]',
        '[::]',
        '[::ffff:127.0.0.1]',
        '[::ffff:a9fe:a9fe]',
        '[0:0:0:0:0:ffff:7f00:1]',
        '[fd00:ec2::254]',
        '[fe80::1]',
        '[fc00::1]',
        '[64:ff9b::a00:1]',
        '[2002:7f00:1::]',
        'localhost',
        'LOCALHOST',
      ),
      fc
        .tuple(
          fc.constantFrom('10', '127', '192.168', '172.16', '172.31', '100.64', '169.254'),
          fc.nat(255),
          fc.nat(255),
        )
        .map(([prefix, a, b]) =>
          prefix.includes('.') ? `${prefix}.${a}.${b}` : `${prefix}.${a}.${b}.${(a * b) % 256}`,
        ),
    ),
    fc.constantFrom('http', 'https', 'HTTP'),
    fc.constantFrom('', ':1', ':80', ':443', ':65535', ':0'),
    fc.constantFrom('/', '/hook', '/x?y=1', '/%2e%2e/', '', '#frag', '/\u00e9'),
    fc.constantFrom('', 'user:pass@', 'a@'),
  )
  .map(([host, scheme, port, path, auth]) => `${scheme}://${auth}${host}${port}${path}`);

/**
 * Cursors to send where a list expects one: forged bodies (`{l, f, v}` as base64url JSON, with
 * operator objects and odd values), real cursors mutated, real cursors as they are (of this list
 * or of another list or filter), random text and random base64.
 */
export function cursorArbitrary(realCursors: readonly string[]): fc.Arbitrary<string> {
  const fingerprints = realCursors.map(
    (c) => (JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as { f: string }).f,
  );
  const lists = realCursors.map(
    (c) => (JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as { l: string }).l,
  );
  const cursorValue = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      { $date: '2026-01-01T00:00:00Z' },
      { $date: 'not a date' },
      { $oid: 'zz' },
      { $oid: '0123456789abcdef01234567' },
      { $gt: '' },
      { $where: 'sleep(1000)' },
      { $date: '2026-01-01T00:00:00Z', $oid: 'x' },
      1e308,
      -0,
    ),
  );
  const forged = fc
    .record({
      l: fc.oneof(fc.constantFrom(...lists, 'meetings', 'users'), nastyString),
      f: fc.oneof(fc.constantFrom(...fingerprints, ''), nastyString),
      v: fc.oneof(fc.array(cursorValue, { maxLength: 4 }), cursorValue),
    })
    .map((body) => Buffer.from(JSON.stringify(body)).toString('base64url'));
  const mutated = fc
    .tuple(fc.constantFrom(...realCursors), fc.nat(), fc.constantFrom('flip', 'cut', 'append', 'pad', 'std'))
    .map(([c, at, how]) => {
      const i = at % c.length;
      if (how === 'flip') return `${c.slice(0, i)}${c[i] === 'A' ? 'B' : 'A'}${c.slice(i + 1)}`;
      if (how === 'cut') return c.slice(0, i);
      if (how === 'append') return `${c}${c.slice(0, i)}`;
      if (how === 'pad') return `${c}==`;
      return Buffer.from(c, 'base64url').toString('base64');
    });
  return fc.oneof(
    forged,
    mutated,
    fc.constantFrom(...realCursors),
    nastyString,
    fc.base64String({ maxLength: 80 }),
  );
}
