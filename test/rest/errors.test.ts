/** What every route shares: authentication (401), unknown paths (404), wrong methods (405), 500s without detail, start-up checks. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadOperations } from '../../rest-compat/documents.js';
import { createRestDoor, routes } from '../../rest-compat/index.js';
import { defineRoute } from '../../rest-compat/route.js';
import { schema } from '../../src/graphql/schema/index.js';
import { createLogger } from '../../src/logger.js';
import { InvalidDocumentError } from '../../src/representation/fragments.js';
import * as S from '../../src/representation/schemas.js';
import { keyOf } from '../support/app.js';
import { testGraphQLServer } from '../support/graphql-server.js';
import { type RestTestApp, startRestTestApp } from './support.js';

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

/** A concrete path and a valid request for each route. */
function sample(route: (typeof routes)[number]): { path: string; body?: unknown } {
  const path = route.path.replace('{recording_id}', '100001').replace('{id}', '000000000000000000000000');
  const body = Object.values(route.examples?.body ?? {})[0]?.value;
  return { path, ...(route.method === 'POST' ? { body } : {}) };
}

describe('authentication', () => {
  const refused: [string, string | undefined][] = [
    ['no credential', undefined],
    ['an unknown key', 'mk_not_a_real_key_at_all_0000'],
    ['a deactivated user', keyOf('deactivated user (401)')],
    ['an invited user', keyOf('invited user (401)')],
    ['a revoked key', keyOf('revoked key (401)')],
    ['an API key sent as a Bearer token', `Bearer ${keyOf('account admin')}`],
    ['an unknown Bearer token', 'Bearer mct_nope_nope_nope_nope'],
  ];
  it.each(refused)('%s: 401 {"error"} on every route', async (_name, key) => {
    for (const route of routes) {
      const { path, body } = sample(route);
      const res = await r.request(route.method, path, { key, body });
      expect(res.status, `${route.method} ${path}`).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('a malformed Authorization header: 401', async () => {
    const res = await r.get('/teams', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status).toBe(401);
  });

  it('the OpenAPI document needs no credential', async () => {
    const res = await r.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
  });
});

describe('routing', () => {
  it.each([
    '/',
    '/nope',
    '/meetings/100001',
    '/recordings/100001',
    '/recordings/100001/other',
    '/webhooks/a/b',
    '/teams/',
  ])('%s: 404 {"error"}', async (path) => {
    const res = await r.get(path, { key: keyOf('account admin') });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each([
    ['PUT', '/meetings', 'GET'],
    ['POST', '/teams', 'GET'],
    ['DELETE', '/users', 'GET'],
    ['GET', '/webhooks', 'POST'],
    ['PATCH', '/webhooks', 'POST'],
    ['GET', '/webhooks/abc', 'DELETE'],
    ['POST', '/recordings/1/summary', 'GET'],
    ['HEAD', '/meeting_types', 'GET'],
    ['POST', '/openapi.json', 'GET'],
  ])('%s %s: 405 with Allow: %s', async (method, path, allow) => {
    const res = await r.request(method, path, { key: keyOf('account admin') });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    if (method !== 'HEAD') expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('the request id is echoed, and the one given is kept', async () => {
    const res = await r.get('/teams', {
      key: keyOf('account admin'),
      headers: { 'x-request-id': 'rest-test-1' },
    });
    expect(res.headers.get('x-request-id')).toBe('rest-test-1');
  });

  it('the GraphQL rate-limit headers come along', async () => {
    const res = await r.get('/teams', { key: keyOf('account admin') });
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });
});

describe('failures inside', () => {
  it('an unexpected error is a 500 {"error": "Internal server error"}, with no detail', async () => {
    const logger = createLogger('silent');
    const graphql = testGraphQLServer(r.t.app.database.collections, {
      logger,
      corsOrigins: [],
      rateLimits: { limits: { general: 1000, heavy: 1000, download: 1000 }, windowSeconds: 60 },
    });
    const broken = defineRoute({
      operationId: 'broken',
      method: 'GET',
      path: '/teams',
      summary: 'breaks after GraphQL answered',
      responses: { 200: { description: 'never', schema: S.listOf('BrokenList', S.Team) } },
      operations: ['ListTeams'],
      graphql: () => ({ operation: 'ListTeams', variables: { first: 1 } }),
      respond: (_data: unknown) => {
        throw new Error('secret internal detail at /work/main/rest-compat');
      },
    });
    const badVariables = defineRoute({
      operationId: 'badVariables',
      method: 'GET',
      path: '/teams2',
      summary: 'sends a variable GraphQL refuses',
      query: z.object({}),
      responses: { 200: { description: 'never' } },
      operations: ['ListTeams'],
      graphql: () => ({ operation: 'ListTeams', variables: { first: 'many' } }),
      respond: () => ({ status: 200, body: {} }),
    });
    const door = createRestDoor({ graphql, logger, routes: [broken, badVariables] });
    const server = createServer((req, res) => door.handler(req, res, { requestId: 'x', route: door.path }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const headers = { 'x-api-key': keyOf('account admin') };
      const res = await fetch(`http://127.0.0.1:${port}/external/v1/teams`, { headers });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: 'Internal server error' });
      const bad = await fetch(`http://127.0.0.1:${port}/external/v1/teams2`, { headers });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: expect.stringContaining('$first') });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('start-up fails on a document that does not validate, or a route naming a missing one', () => {
    const folder = mkdtempSync(join(tmpdir(), 'rest-ops-'));
    writeFileSync(join(folder, 'Broken.graphql'), 'query Broken { meetings { edges { node { nope } } } }');
    expect(() => loadOperations(schema, pathToFileURL(`${folder}/`))).toThrow(InvalidDocumentError);
    writeFileSync(join(folder, 'Broken.graphql'), 'query Broken { meetings { ');
    expect(() => loadOperations(schema, pathToFileURL(`${folder}/`))).toThrow(/Broken\.graphql/);

    const logger = createLogger('silent');
    const graphql = testGraphQLServer(r.t.app.database.collections, {
      logger,
      corsOrigins: [],
      rateLimits: { limits: { general: 1, heavy: 1, download: 1 }, windowSeconds: 60 },
    });
    const missing = defineRoute({
      operationId: 'missing',
      method: 'GET',
      path: '/x',
      summary: 'names a document that does not exist',
      responses: { 204: { description: 'never' } },
      operations: ['NoSuchDocument'],
      graphql: () => ({ operation: 'NoSuchDocument', variables: {} }),
      respond: () => ({ status: 204 }),
    });
    expect(() => createRestDoor({ graphql, logger, routes: [missing] })).toThrow(/NoSuchDocument/);
  });
});
