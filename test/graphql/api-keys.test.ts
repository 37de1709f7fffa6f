/**
 * Self-service API keys: made through GraphQL, a key works on both doors at once, is listed by its
 * prefix with its last use, and is refused (401) within seconds of its revocation, by this process
 * and by another sharing the database; a deactivated user's keys, an expired key and a key whose
 * checksum does not add up are refused too. Account admins list and revoke their users' keys; a
 * connected app manages none. `npm run keys` bootstraps an operator's key.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import { commandCollection } from '../../src/db/connection.js';
import { API_KEY_PREFIX, mayBeApiKey } from '../../src/domain/api-key-format.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { builtEntry, ensureBuild } from '../support/build.js';

const run = promisify(execFile);

const admin = keyOf('account admin');
const member = keyOf('member: team view');
const memberEmail = demoPersonas.find((p) => p.label === 'member: team view')!.email;
const connectedApp = `Bearer ${keyOf('connected app (Tom)')}`;

let t: TestApp;
let other: TestApp; // another process sharing the database

beforeAll(async () => {
  [t] = await Promise.all([startTestApp({ LAST_USED_WRITE_MS: '100' }), ensureBuild()]);
  other = await startTestApp({ MONGODB_URI: t.app.mongoUri, SEED_DEMO: 'false' });
}, 180_000);
afterAll(async () => {
  await other?.close();
  await t?.close();
});

const create = `mutation($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { key apiKey { id name prefix createdAt lastUsedAt expiresAt } } }`;
const revoke = 'mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }';
const ownKeys = '{ viewer { email apiKeys { id name prefix lastUsedAt } } }';

async function createKey(key: string, input: Record<string, unknown>) {
  const res = await t.graphql(create, { input }, key);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createApiKey as { key: string; apiKey: { id: string; prefix: string; name: string } };
}

/** The status of a REST page and of a GraphQL query with the key, on the app given. */
async function statuses(app: TestApp, key: string): Promise<[number, number]> {
  const rest = await fetch(`${app.url}/external/v1/meetings?limit=1`, { headers: { 'x-api-key': key } });
  const graphql = await app.graphql('{ viewer { email } }', {}, key);
  return [rest.status, graphql.status];
}

describe('API keys made through GraphQL', () => {
  it('a new key works on both doors at once, in every process, and is shown once in full', async () => {
    const { key, apiKey } = await createKey(member, { name: 'CRM sync' });
    expect(key).toMatch(/^mgk_[0-9A-Za-z]{38}$/);
    expect(mayBeApiKey(key)).toBe(true);
    expect(apiKey.prefix).toBe(key.slice(0, 12));
    expect(await statuses(t, key)).toEqual([200, 200]);
    expect(await statuses(other, key)).toEqual([200, 200]);
    const me = await t.graphql('{ viewer { email } }', {}, key);
    expect(me.body.data.viewer.email).toBe(memberEmail);
    // Listed by prefix, never in full.
    const list = await t.graphql(ownKeys, {}, member);
    const listed = list.body.data.viewer.apiKeys.find((k: any) => k.id === apiKey.id);
    expect(listed).toMatchObject({ name: 'CRM sync', prefix: apiKey.prefix });
    expect(JSON.stringify(list.body)).not.toContain(key);
  });

  it('is listed with its last use, written without a write per request', async () => {
    const { key, apiKey } = await createKey(member, { name: 'last use' });
    const before = Date.now();
    const rounds = 20; // a REST and a GraphQL request each
    const started = performance.now();
    const used = await t.countCommands(async () => {
      for (let i = 0; i < rounds; i++) await statuses(t, key);
    });
    const elapsedMs = performance.now() - started;
    // At most one write every LAST_USED_WRITE_MS (100 ms here), whatever the number of requests.
    const writes = used.commands.filter(
      (c) => commandCollection(c) === 'credentials' && c.commandName !== 'find',
    );
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / 100) + 1);
    expect(writes.length).toBeLessThan(rounds);
    await expect
      .poll(
        async () => {
          const list = await t.graphql(ownKeys, {}, member);
          const at = list.body.data.viewer.apiKeys.find((k: any) => k.id === apiKey.id)?.lastUsedAt;
          return at ? Date.parse(at) : 0;
        },
        { timeout: 5_000 },
      )
      .toBeGreaterThanOrEqual(before - 1000);
  });

  it('is refused (401) within seconds of its revocation, by every process', async () => {
    const { key, apiKey } = await createKey(member, { name: 'to revoke' });
    expect(await statuses(other, key)).toEqual([200, 200]); // the other process has it cached
    const revoked = await t.graphql(revoke, { id: apiKey.id }, member);
    expect(revoked.body.errors).toBeUndefined();
    expect(revoked.body.data.revokeApiKey.revokedAt).toBeTruthy();
    for (const app of [t, other])
      await expect.poll(() => statuses(app, key), { timeout: 5_000, interval: 200 }).toEqual([401, 401]);
    const list = await t.graphql(ownKeys, {}, member);
    expect(list.body.data.viewer.apiKeys.map((k: any) => k.id)).not.toContain(apiKey.id);
  });

  it("a deactivated user's keys stop working", async () => {
    const persona = demoPersonas.find((p) => p.label === 'member: multiple teams')!;
    const { key } = await createKey(persona.apiKey, { name: 'before leaving' });
    expect(await statuses(t, key)).toEqual([200, 200]);
    const { users } = t.app.database.collections;
    await users.updateOne({ email: persona.email }, { $set: { status: 'deactivated' } });
    try {
      await expect.poll(() => statuses(t, key), { timeout: 5_000, interval: 200 }).toEqual([401, 401]);
    } finally {
      await users.updateOne({ email: persona.email }, { $set: { status: 'active' } });
    }
  });

  it('an expiring key works until its expiry, then is refused; an expiry in the past is a bad input', async () => {
    const { key } = await createKey(member, {
      name: 'short',
      expiresAt: new Date(Date.now() + 3_000).toISOString(),
    });
    expect(await statuses(t, key)).toEqual([200, 200]);
    await expect.poll(() => statuses(t, key), { timeout: 8_000, interval: 250 }).toEqual([401, 401]);
    const past = await t.graphql(
      create,
      { input: { name: 'late', expiresAt: '2020-01-01T00:00:00Z' } },
      member,
    );
    expect(past.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('a key whose checksum does not add up is refused without a database lookup', async () => {
    const { key } = await createKey(member, { name: 'typo' });
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    const typo = key.slice(0, -1) + last;
    expect(mayBeApiKey(typo)).toBe(false);
    const { result, commands } = await t.countCommands(() => statuses(t, typo));
    expect(result).toEqual([401, 401]);
    // No lookup; the write of the last use of the key that made it (every 100 ms here) may fall in.
    const lookups = commands.filter(
      (c) => commandCollection(c) === 'credentials' && c.commandName !== 'update',
    );
    expect(lookups).toEqual([]);
  });

  it('names are 1 to 100 characters', async () => {
    for (const name of ['', ' ', 'x'.repeat(101)]) {
      const res = await t.graphql(create, { input: { name } }, member);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});

describe('who manages whose keys', () => {
  it("an account admin lists a user's keys and revokes one; the user's key is refused", async () => {
    const { key, apiKey } = await createKey(member, { name: 'offboarding' });
    const users = await t.graphql(
      '{ users(first: 100) { edges { node { email apiKeys { id prefix } } } } }',
      {},
      admin,
    );
    expect(users.body.errors).toBeUndefined();
    const node = users.body.data.users.edges
      .map((e: any) => e.node)
      .find((u: any) => u.email === memberEmail);
    expect(node.apiKeys.map((k: any) => k.prefix)).toContain(apiKey.prefix);
    const revoked = await t.graphql(revoke, { id: apiKey.id }, admin);
    expect(revoked.body.errors).toBeUndefined();
    await expect.poll(() => statuses(t, key), { timeout: 5_000, interval: 200 }).toEqual([401, 401]);
  });

  it("a member sees only their own keys, and cannot revoke another's (404, as for a key that does not exist)", async () => {
    const { apiKey } = await createKey(admin, { name: "the admin's" });
    const members = await t.graphql(
      '{ teamMembers(first: 100) { edges { node { email apiKeys { id } } } } }',
      {},
      member,
    );
    const errors = members.body.errors ?? [];
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.extensions?.code === 'FORBIDDEN')).toBe(true);
    const nodes = members.body.data.teamMembers.edges.map((e: any) => e.node);
    for (const node of nodes) if (node.email !== memberEmail) expect(node.apiKeys).toBeNull();
    const refused = await t.graphql(revoke, { id: apiKey.id }, member);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('a connected app makes, lists and revokes no keys', async () => {
    const made = await t.graphql(create, { input: { name: 'from an app' } }, connectedApp);
    expect(made.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const listed = await t.graphql(ownKeys, {}, connectedApp);
    expect(listed.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('npm run keys', () => {
  const keys = (...args: string[]) =>
    run(process.execPath, [builtEntry('keys'), ...args], {
      env: { ...process.env, MONGODB_URI: t.app.mongoUri, MONGODB_DB: 'meetings' },
    });

  it("makes an operator's first key, lists it by prefix, revokes it by prefix", async () => {
    const email = demoPersonas.find((p) => p.label === 'account admin')!.email;
    const made = await keys('create', '--user', email, '--name', 'bootstrap');
    const key = made.stdout.trim();
    expect(key.startsWith(API_KEY_PREFIX) && mayBeApiKey(key)).toBe(true);
    expect(await statuses(t, key)).toEqual([200, 200]);
    const listed = await keys('list', '--user', email);
    expect(listed.stdout).toContain(key.slice(0, 12));
    expect(listed.stdout).not.toContain(key);
    await keys('revoke', '--prefix', key.slice(0, 12));
    await expect.poll(() => statuses(t, key), { timeout: 5_000, interval: 200 }).toEqual([401, 401]);
  });

  it('exits 2 with the usage for an unknown user or command', async () => {
    for (const args of [['create', '--user', 'nobody@example.test', '--name', 'x'], ['frobnicate']])
      await expect(keys(...args)).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('Usage:'),
      });
  });
});
