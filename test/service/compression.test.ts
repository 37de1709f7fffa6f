/**
 * Compression through the real server: both doors answer br or gzip when asked (and identity when
 * not), small answers stay plain, the GraphiQL page is precompressed with an ETag, and SSE
 * subscriptions are never compressed. Raw node:http requests, since fetch decompresses by itself.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateEncoding } from '../../src/http/compression.js';
import { splicedGzip } from '../../src/http/spliced-gzip.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(
  url: string,
  headers: Record<string, string>,
  options: { method?: string; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function decoded(answer: Raw): string {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body).toString();
  if (encoding === 'gzip') return gunzipSync(answer.body).toString();
  expect(encoding).toBeUndefined();
  return answer.body.toString();
}

let t: TestApp;
const admin = () => ({ 'x-api-key': keyOf('account admin') });
const meetingsPath =
  '/external/v1/meetings?limit=20&include_transcript=true&include_summary=true&include_action_items=true';

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('negotiateEncoding', () => {
  it('prefers brotli, honours q-values and *, and falls back to identity', () => {
    expect(negotiateEncoding('gzip, deflate, br')).toBe('br');
    expect(negotiateEncoding('gzip')).toBe('gzip');
    expect(negotiateEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('identity')).toBeUndefined();
    expect(negotiateEncoding(undefined)).toBeUndefined();
  });

  it('lets the server choose on a tie, never against the client’s preference', () => {
    expect(negotiateEncoding('gzip, deflate, br, zstd', 'gzip')).toBe('gzip');
    expect(negotiateEncoding('*', 'gzip')).toBe('gzip');
    expect(negotiateEncoding('br, gzip;q=0.9', 'gzip')).toBe('br');
    expect(negotiateEncoding('br', 'gzip')).toBe('br');
  });
});

describe('splicedGzip', () => {
  it('joins its parts’ deflate streams into one gzip member that decompresses to the parts joined', async () => {
    const text = (n: number, seed: number) =>
      Buffer.from(Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * seed) % 90))).join(''));
    const big = text(300_000, 7);
    const parts = [text(10, 3), Buffer.alloc(0), big, Buffer.from('é ✓ "unicode"'), big, text(20_000, 11)];
    for (let run = 0; run < 2; run++) {
      // gunzip checks the trailer (CRC-32 and length) too.
      const gzipped = Buffer.concat(await splicedGzip(parts, 6));
      expect(gunzipSync(gzipped).equals(Buffer.concat(parts))).toBe(true);
      expect(gzipped.length).toBeLessThan(Buffer.concat(parts).length / 2);
    }
  });
});

describe('REST door', () => {
  it('answers br and gzip that decompress to the identity answer, with Vary', async () => {
    const plain = await raw(`${t.url}${meetingsPath}`, admin());
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const encoding of ['br', 'gzip']) {
      const answer = await raw(`${t.url}${meetingsPath}`, { ...admin(), 'accept-encoding': encoding });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
      expect(answer.headers['x-request-id']).toBeTruthy();
      expect(answer.headers['ratelimit-limit']).toBeTruthy();
      expect(answer.body.length).toBeLessThan(plain.body.length);
      expect(JSON.parse(decoded(answer))).toEqual(JSON.parse(plain.body.toString()));
    }
  });

  it('answers a browser (gzip and br alike) with gzip spliced from stored content, the same bytes each time', async () => {
    const plain = await raw(`${t.url}${meetingsPath}`, admin());
    const browser = { ...admin(), 'accept-encoding': 'gzip, deflate, br, zstd' };
    const answers = [
      await raw(`${t.url}${meetingsPath}`, browser),
      await raw(`${t.url}${meetingsPath}`, browser),
    ];
    for (const answer of answers) {
      expect(answer.headers['content-encoding']).toBe('gzip');
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
      expect(decoded(answer)).toBe(plain.body.toString());
    }
    expect(answers[1]!.body.equals(answers[0]!.body)).toBe(true);
  });

  it('leaves small answers uncompressed', async () => {
    const answer = await raw(`${t.url}/external/v1/meetings?limit=1`, { 'accept-encoding': 'br, gzip' });
    expect(answer.status).toBe(401);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(answer.body.toString())).toHaveProperty('error');
    const health = await raw(`${t.url}/healthz`, { 'accept-encoding': 'br' });
    expect(health.headers['content-encoding']).toBeUndefined();
  });

  it('serves the OpenAPI document precompressed with an ETag', async () => {
    const first = await raw(`${t.url}/external/v1/openapi.json`, { 'accept-encoding': 'br' });
    expect(first.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decoded(first))).toHaveProperty('openapi');
    const again = await raw(`${t.url}/external/v1/openapi.json`, {
      'if-none-match': String(first.headers.etag),
    });
    expect(again.status).toBe(304);
  });
});

describe('/graphql', () => {
  const query = JSON.stringify({
    query: '{ meetings(first: 20) { edges { node { recordingId title transcript { text } } } } }',
  });
  const post = (extra: Record<string, string>) =>
    raw(
      `${t.url}/graphql`,
      { ...admin(), 'content-type': 'application/json', accept: 'application/json', ...extra },
      { method: 'POST', body: query },
    );

  it('compresses JSON answers when asked, identity otherwise', async () => {
    const plain = await post({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString()).data.meetings.edges.length).toBeGreaterThan(0);
    for (const encoding of ['br', 'gzip']) {
      const answer = await post({ 'accept-encoding': encoding });
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
      expect(answer.headers['ratelimit-remaining']).toBeTruthy();
      expect(JSON.parse(decoded(answer))).toEqual(JSON.parse(plain.body.toString()));
    }
  });

  it('answers a browser with gzip spliced from stored content, byte for byte the identity answer', async () => {
    const plain = await post({});
    const answer = await post({ 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(decoded(answer)).toBe(plain.body.toString());
  });

  it('serves GraphiQL precompressed, with an ETag and 304 on If-None-Match', async () => {
    const page = { accept: 'text/html' };
    const plain = await raw(`${t.url}/graphql`, page);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const etag = String(plain.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    expect(plain.headers['cache-control']).toBeTruthy();
    const br = await raw(`${t.url}/graphql`, { ...page, 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toBe(etag);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(decoded(br)).toBe(plain.body.toString());
    const gzip = await raw(`${t.url}/graphql`, { ...page, 'accept-encoding': 'gzip' });
    expect(decoded(gzip)).toBe(plain.body.toString());
    const notModified = await raw(`${t.url}/graphql`, { ...page, 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
  });

  it('never compresses an SSE subscription', async () => {
    const answer = await new Promise<{ headers: Raw['headers']; first: string }>((resolve, reject) => {
      const req = request(
        `${t.url}/graphql`,
        {
          method: 'POST',
          headers: {
            ...admin(),
            'content-type': 'application/json',
            accept: 'text/event-stream',
            'accept-encoding': 'br, gzip',
          },
        },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            resolve({ headers: res.headers, first: chunk.toString() });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ query: 'subscription { meetingContentReady { recordingId } }' }));
    });
    expect(answer.headers['content-type']).toContain('text/event-stream');
    // Yoga marks event streams `content-encoding: none` so that proxies leave them alone too.
    expect(answer.headers['content-encoding'] ?? 'none').toBe('none');
    expect(answer.first).toMatch(/^:/); // Yoga's keep-alive comment, as text
  });
});
