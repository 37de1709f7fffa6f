/**
 * Keys are reused for CREDENTIAL_CACHE_MS instead of read on every request. What a user must still
 * see: a revoked key or a deactivated user refused within seconds on every process sharing the
 * database, and a key made a moment ago working at once. (A database that fails is still a 503
 * with a key in the cache: test/service/outage.test.ts.)
 */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import type { Collections } from '../../src/db/collections.js';
import { hashSecret } from '../../src/domain/viewer.js';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';

let first: TestApp;
let second: TestApp;
let collections: Collections;

beforeAll(async () => {
  first = await startTestApp();
  // A second process of the service on the same database.
  second = await startTestApp({ MONGODB_URI: first.app.mongoUri, SEED_DEMO: 'false' });
  collections = first.app.database.collections;
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const status = async (app: TestApp, key: string) =>
  (await fetch(`${app.url}/external/v1/meetings?limit=1`, { headers: authHeaders(key) })).status;

/** Polls until `key` is refused by `app`; how long it took. Fails after 5 s. */
async function refusedWithin(app: TestApp, key: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 5_000) {
    if ((await status(app, key)) === 401) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('still accepted after 5 s');
}

/** Stores an API key for the user with `email` (a fresh one unless `secret` is given). */
async function newKey(email: string, secret = `test_${new ObjectId().toHexString()}`): Promise<string> {
  const user = await collections.users.findOne({ email });
  await collections.credentials.insertOne({
    _id: new ObjectId(),
    kind: 'api_key',
    userId: user!._id,
    secretHash: hashSecret(secret),
    prefix: secret.slice(0, 8),
    label: 'read-cache test',
    appName: null,
    createdAt: new Date(),
    revokedAt: null,
  });
  return secret;
}

const emailOf = (label: string) => demoPersonas.find((p) => p.label === label)!.email;

describe('the read cache', () => {
  it('a key made a moment ago works at once, even right after it was refused', async () => {
    const secret = `test_${new ObjectId().toHexString()}`;
    expect(await status(first, secret)).toBe(401);
    await newKey(emailOf('member: team view'), secret);
    expect(await status(first, secret)).toBe(200);
  });

  it('a revoked key is refused by every process within seconds', async () => {
    const key = await newKey(emailOf('member: team view'));
    expect([await status(first, key), await status(second, key)]).toEqual([200, 200]);
    await collections.credentials.updateOne(
      { secretHash: hashSecret(key) },
      { $set: { revokedAt: new Date() } },
    );
    const waits = await Promise.all([refusedWithin(first, key), refusedWithin(second, key)]);
    for (const ms of waits) expect(ms).toBeLessThan(3_000);
  });

  it("a deactivated user's keys stop working on every process within seconds", async () => {
    const email = emailOf('member: multiple teams');
    const key = await newKey(email);
    expect([await status(first, key), await status(second, key)]).toEqual([200, 200]);
    await collections.users.updateOne({ email }, { $set: { status: 'deactivated' } });
    try {
      for (const app of [first, second]) expect(await refusedWithin(app, key)).toBeLessThan(3_000);
      // The user's other key too (the demo one).
      expect(await status(first, keyOf('member: multiple teams'))).toBe(401);
    } finally {
      await collections.users.updateOne({ email }, { $set: { status: 'active' } });
    }
  });

  it("a key's first call reads its credential and user; its organisation comes from the directory cache", async () => {
    const email = emailOf('member: all teams view');
    await status(first, await newKey(email));
    const other = await newKey(email);
    const { commands } = await first.countCommands(() => status(first, other));
    const reads = commands.filter((c) => c.commandName === 'find').map((c) => c.command.find);
    expect(reads).toContain('credentials');
    expect(reads).toContain('users');
    expect(reads).not.toContain('organisations');
  });

  it('concurrent first requests with one key look it up once', async () => {
    const key = await newKey(emailOf('member: all teams view'));
    const { result, commands } = await first.countCommands(() =>
      Promise.all(Array.from({ length: 10 }, () => status(first, key))),
    );
    expect(result).toEqual(Array(10).fill(200));
    expect(commands.filter((c) => c.commandName === 'find' && c.command.find === 'credentials')).toHaveLength(
      1,
    );
  });
});
