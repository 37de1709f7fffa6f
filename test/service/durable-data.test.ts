/**
 * `npm start` on the embedded engine with a data directory: what was stored is there after a stop
 * and a start, and the demo data, loaded on the first start only, is not loaded over it again.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type App, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { authHeaders, keyOf } from '../support/app.js';

const dir = mkdtempSync(path.join(tmpdir(), 'meetings-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(): Promise<App> {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    DELIVERY_WORKER: 'false',
    EMBEDDED_MONGO_PATH: dir,
  });
  return startApp(config, createLogger(config.LOG_LEVEL));
}

/** The meetings the account admin sees (recording id: title), as GraphQL answers them. */
async function meetings(app: App): Promise<string[]> {
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(keyOf('account admin')) },
    body: JSON.stringify({ query: '{ meetings(first: 20) { edges { node { recordingId title } } } }' }),
  });
  type Node = { recordingId: number; title: string };
  const body = (await res.json()) as { data: { meetings: { edges: { node: Node }[] } } };
  return body.data.meetings.edges.map((e) => `${e.node.recordingId}: ${e.node.title}`);
}

describe('the service on a data directory', () => {
  it('keeps what was stored across a restart, without loading the demo data over it', async () => {
    const first = await start();
    let listing: string[];
    try {
      expect(first.demoLoaded).toBe(true);
      const [listed] = await meetings(first);
      const recordingId = Number(listed!.split(':')[0]);
      await first.database.collections.meetings.updateOne(
        { recordingId },
        { $set: { title: 'Renamed after the demo load' } },
      );
      listing = await meetings(first);
      expect(listing).toContain(`${recordingId}: Renamed after the demo load`);
    } finally {
      await first.close();
    }

    const second = await start();
    try {
      // The demo keys still work (their credentials were kept) and the change is still there.
      expect(await meetings(second)).toEqual(listing);
    } finally {
      await second.close();
    }
  });
});

describe('the service on a disk that fills', () => {
  // A tmpfs of 32 MB, which needs the right to mount (root here and on CI).
  const disk = mkdtempSync(path.join(tmpdir(), 'meetings-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', disk]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync('umount', [disk]);
    rmSync(disk, { recursive: true, force: true });
  });

  it.skipIf(!mounted)('answers 503 with Retry-After on both doors once the engine cannot store', async () => {
    const config = loadConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      DELIVERY_WORKER: 'false',
      EMBEDDED_MONGO_PATH: path.join(disk, 'data'),
    });
    const app = await startApp(config, createLogger(config.LOG_LEVEL));
    try {
      const filler = app.database.db.collection<{ body: string }>('filler');
      await expect(
        (async () => {
          for (let i = 0; i < 1_000; i++) await filler.insertOne({ body: 'x'.repeat(200_000) });
        })(),
      ).rejects.toMatchObject({ code: 14031 });
      const headers = authHeaders(keyOf('account admin'));
      const rest = await fetch(`${app.url}/external/v1/meetings`, { headers });
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await rest.json()).toEqual({ error: expect.any(String) });
      const graphql = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ meetings(first: 1) { edges { node { title } } } }' }),
      });
      expect(graphql.status).toBe(503);
      const body = (await graphql.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await app.close();
    }
  });
});
