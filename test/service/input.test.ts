/**
 * Bad input is a clear 4xx through both doors: never a 500, never a silent rewrite. Each case is
 * what an attacker tried: a document nested past the parser's stack, a forged cursor, URLs and
 * emails with control characters, impossible dates, oversized GraphQL bodies.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RestTestApp, startRestTestApp } from '../rest/support.js';
import { keyOf } from '../support/app.js';

let r: RestTestApp;
const admin = keyOf('account admin');
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

function expectGraphQLRefusal(
  res: { status: number; body: { data?: unknown; errors?: { message: string; extensions?: any }[] } },
  code: string,
  status: number,
  message?: RegExp,
) {
  expect(res.status).toBe(status);
  const error = res.body.errors?.[0];
  expect(error?.extensions?.code).toBe(code);
  expect(error?.extensions?.http?.status).toBe(status);
  if (message) expect(error?.message).toMatch(message);
}

describe('documents nested deeper than the parser can go', () => {
  const nested = (depth: number) =>
    `{ meetings(filter: {teams: ${'['.repeat(depth)}"a"${']'.repeat(depth)}}) { edges { cursor } } }`;

  it('POST: 400 OPERATION_LIMIT_EXCEEDED, with or without a key', async () => {
    for (const key of [undefined, admin]) {
      const res = await r.t.graphql(nested(2500), undefined, key);
      expectGraphQLRefusal(
        res,
        'OPERATION_LIMIT_EXCEEDED',
        400,
        /nests .* more than 64 deep \(the nesting limit\)/,
      );
    }
  });

  it('GET: 400 OPERATION_LIMIT_EXCEEDED', async () => {
    const res = await fetch(`${r.url}/graphql?query=${encodeURIComponent(nested(2500))}`, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expectGraphQLRefusal({ status: res.status, body: await res.json() }, 'OPERATION_LIMIT_EXCEEDED', 400);
  });

  it('brackets inside strings and comments do not count, and modest nesting still parses', async () => {
    const res = await r.t.graphql(
      `# ${'['.repeat(200)}\n{ meetings(filter: {teams: ["${'['.repeat(200)}"]}) { edges { cursor } } }`,
      undefined,
      admin,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });
});

describe('forged cursors', () => {
  const forge = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');

  it('a meetings cursor with a number where the date belongs is refused, on both doors', async () => {
    const first = await r.t.graphql('{ meetings(first: 1) { edges { cursor } } }', undefined, admin);
    const real = JSON.parse(Buffer.from(first.body.data.meetings.edges[0].cursor, 'base64url').toString());
    expect(real.v[0]).toHaveProperty('$date');
    for (const v of [
      [1e15, real.v[1]], // a number where the date belongs
      [real.v[0], 'x'], // a string where the recording id belongs
      [{ $oid: '0123456789abcdef01234567' }, real.v[1]], // an id where the date belongs
    ]) {
      const cursor = forge({ ...real, v });
      const res = await r.t.graphql(
        'query($after: String) { meetings(first: 5, after: $after) { edges { cursor } } }',
        { after: cursor },
        admin,
      );
      // What was wrong, and what to do: where a good cursor comes from, and how to start over.
      const message =
        /^The cursor is not valid\. Pass the endCursor \(next_cursor on REST\) of the previous page of this same list.*leave the cursor out to start from the first page\.$/;
      expectGraphQLRefusal(res, 'BAD_USER_INPUT', 400, message);
      const rest = await r.get('/meetings', { key: admin, query: { cursor } });
      expect(rest.status).toBe(400);
      expect(rest.body).toEqual({ error: expect.stringMatching(message) });
    }
  });
});

describe('destination URLs that new URL would rewrite', () => {
  // The receiver's address passes the egress guard (tests allow loopback), so only the characters
  // can be what is refused.
  const cases = () =>
    [
      ['a NUL', `${r.receiverUrl}/a\u0000b`],
      ['a lone surrogate', `${r.receiverUrl}/a\ud800b`],
      ['a tab', `${r.receiverUrl}/a\tb`],
      ['a trailing space', `${r.receiverUrl}/ `],
      ['DEL', `${r.receiverUrl}/\u007f`],
    ] as const;

  it('REST POST /webhooks: 400 naming destination_url, nothing stored', async () => {
    for (const [label, url] of cases()) {
      const res = await r.request('POST', '/webhooks', {
        key: admin,
        body: { destination_url: url, triggered_for: ['my_recordings'], include_summary: true },
      });
      expect([label, res.status]).toEqual([label, 400]);
      expect(res.body.error).toMatch(/^destination_url must not contain/);
    }
  });

  it('REST transcript delivery and GraphQL createWebhook refuse them too', async () => {
    for (const [label, url] of cases()) {
      // A query string cannot carry a lone surrogate (it decodes as U+FFFD): the body and GraphQL can.
      if (label !== 'a lone surrogate') {
        const rest = await r.get('/recordings/100001/transcript', {
          key: admin,
          query: { destination_url: url },
        });
        expect([label, rest.status]).toEqual([label, 400]);
        expect(rest.body.error).toMatch(/^destination_url must not contain/);
      }
      const res = await r.t.graphql(
        'mutation($url: String!) { createWebhook(input: {destinationUrl: $url, triggeredFor: [MY_RECORDINGS], includeSummary: true}) { secret } }',
        { url },
        admin,
      );
      expectGraphQLRefusal(res, 'BAD_USER_INPUT', 400, /control characters/);
    }
  });

  it('an ordinary URL is still accepted', async () => {
    const res = await r.request('POST', '/webhooks', {
      key: admin,
      body: {
        destination_url: `${r.receiverUrl}/ok`,
        triggered_for: ['my_recordings'],
        include_summary: true,
      },
    });
    expect(res.status).toBe(201);
  });
});

describe('emails with control characters', () => {
  it('REST recorded_by[] with a NUL is a 400 naming the parameter', async () => {
    const res = await r.get('/meetings', { key: admin, query: { recorded_by: ['a\u0000b@example.com'] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/recorded_by/);
  });

  it('the GraphQL Email scalar refuses a NUL, DEL and a lone surrogate', async () => {
    for (const email of ['a\u0000b@example.com', 'a\u007fb@example.com', 'a\udc00@example.com']) {
      const res = await r.t.graphql(
        'query($e: [Email!]) { meetings(filter: {recordedBy: $e}) { edges { cursor } } }',
        { e: [email] },
        admin,
      );
      expectGraphQLRefusal(res, 'BAD_USER_INPUT', 400, /Email|email/);
    }
  });
});

describe('impossible dates', () => {
  for (const value of [
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-01-01T24:00:00Z',
  ]) {
    it(`GraphQL refuses ${value} (as REST does)`, async () => {
      const res = await r.t.graphql(
        'query($d: DateTime) { meetings(filter: {createdAfter: $d}) { edges { cursor } } }',
        { d: value },
        admin,
      );
      expectGraphQLRefusal(res, 'BAD_USER_INPUT', 400, /DateTime|date-time/);
      const literal = await r.t.graphql(
        `{ meetings(filter: {createdAfter: "${value}"}) { edges { cursor } } }`,
        undefined,
        admin,
      );
      expectGraphQLRefusal(literal, 'BAD_USER_INPUT', 400);
      const rest = await r.get('/meetings', { key: admin, query: { created_after: value } });
      expect(rest.status).toBe(400);
    });
  }

  it('a leap day and an offset still parse', async () => {
    const res = await r.t.graphql(
      '{ meetings(filter: {createdAfter: "2024-02-29T23:59:59.5+05:30"}) { edges { cursor } } }',
      undefined,
      admin,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });
});

describe('GraphQL body limit (1 MiB by default)', () => {
  /** Sends a POST with `size` bytes of body; `chunked` leaves Content-Length out. */
  function post(size: number, chunked: boolean): Promise<{ status: number; connection?: string; body: any }> {
    return new Promise((resolve, reject) => {
      const req = request(`${r.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          ...(chunked ? {} : { 'content-length': String(size) }),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            body: JSON.parse(text),
          }),
        );
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const write = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', write);
        }
        req.end();
      };
      if (chunked) write();
      else req.write(chunk); // the rest never needs to come: the answer is due from the header alone
    });
  }

  it('a declared Content-Length over the limit is a 413 before the body is read or a key checked', async () => {
    const res = await post(4 * 1024 * 1024, false);
    expect(res.status).toBe(413);
    expect(res.connection).toBe('close'); // the rest of the body is not drained
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'REQUEST_ENTITY_TOO_LARGE',
      http: { status: 413 },
    });
  });

  it('a chunked body is counted while it is read: 413', async () => {
    const res = await post(2 * 1024 * 1024, true);
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });
});

it('the REST door’s own documents are unaffected by the new limits', async () => {
  const res = await r.get('/meetings', { key: admin, query: { include_transcript: true, limit: 2 } });
  expect(res.status).toBe(200);
  expect(res.body.items).toHaveLength(2);
});
