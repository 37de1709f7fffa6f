/** Unexpected errors are masked for the client and logged, with the request id, for us. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Collections } from '../../src/db/collections.js';
import { createLogger, withRequestId } from '../../src/logger.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testGraphQLServer } from '../support/graphql-server.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('error masking', () => {
  it('a failing store yields "Unexpected error." with INTERNAL_SERVER_ERROR; the cause is logged, not leaked', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const broken = {
      ...t.app.database.collections,
      meetings: {
        find: () => {
          throw new Error('connection string mongodb://admin:hunter2@db');
        },
      },
    } as unknown as Collections;
    const yoga = testGraphQLServer(broken, {
      logger: createLogger('error', sink),
      corsOrigins: [],
      rateLimits: { limits: { general: 60, heavy: 30, download: 30 }, windowSeconds: 60 },
    });
    const res = await withRequestId('req-42', () =>
      yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': keyOf('account admin') },
        body: JSON.stringify({ query: '{ meetings { edges { cursor } } }' }),
      }),
    );
    const text = await res.text();
    expect(text).not.toContain('hunter2');
    const body = JSON.parse(text);
    expect(body.errors[0].message).toBe('Unexpected error.');
    expect(body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
    expect(body.errors[0].path).toEqual(['meetings']);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unexpected GraphQL error');
    expect(logged?.requestId).toBe('req-42');
    expect(JSON.stringify(logged)).toContain('hunter2');
  });
});
