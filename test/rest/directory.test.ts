/** GET /teams, /team_members, /meeting_types and /users. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { keyOf } from '../support/app.js';
import { type RestTestApp, startRestTestApp } from './support.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const acme = (u: (typeof dataset.users)[number]) => u.organisation === 'acme';

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

describe('GET /teams', () => {
  it('the organisation’s teams by name, {name, created_at}', async () => {
    const res = await r.get('/teams', { key: admin });
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(10);
    expect(res.body.next_cursor).toBeNull();
    const expected = dataset.teams.filter((t) => t.organisation === 'acme').map((t) => t.name);
    expect(res.body.items.map((t: any) => t.name)).toEqual([...expected].sort());
    for (const t of res.body.items) {
      expect(Object.keys(t).sort()).toEqual(['created_at', 'name']);
      expect(t.created_at).toMatch(/Z$/);
    }
  });

  it('pages of one to the end give the same list', async () => {
    const full = await r.get('/teams', { key: admin });
    const { items, pages } = await r.getAll('/teams', { key: admin, query: { limit: 1 } });
    expect(items).toEqual(full.body.items);
    expect(pages).toHaveLength(full.body.items.length);
    expect(pages.every((p) => p.body.limit === 1)).toBe(true);
  });

  it('another organisation sees its own (none for Globex)', async () => {
    const res = await r.get('/teams', { key: keyOf('external user (Globex)') });
    expect(res.body).toEqual({ limit: 10, next_cursor: null, items: [] });
  });
});

describe('GET /team_members', () => {
  const members = (team?: string) =>
    dataset.users
      .filter((u) => acme(u) && u.status === 'active' && u.team !== null && (!team || u.team === team))
      .map((u) => u.email)
      .sort();

  it('active members of every team, by email, {name, email, created_at}', async () => {
    const { items } = await r.getAll('/team_members', { key: admin, query: { limit: 4 } });
    expect(items.map((u) => u.email)).toEqual(members());
    for (const u of items) expect(Object.keys(u).sort()).toEqual(['created_at', 'email', 'name']);
  });

  it('team=<name> filters; an unknown team is an empty list', async () => {
    const sales = await r.get('/team_members', { key: admin, query: { team: 'Sales' } });
    expect(sales.body.items.map((u: any) => u.email)).toEqual(members('Sales'));
    const none = await r.get('/team_members', { key: admin, query: { team: 'Nope' } });
    expect(none.body).toEqual({ limit: 10, next_cursor: null, items: [] });
  });
});

describe('GET /meeting_types', () => {
  it('active and inactive, {name, status, created_at}, no id', async () => {
    const res = await r.get('/meeting_types', { key: admin });
    expect(res.status).toBe(200);
    const expected = dataset.meeting_types.filter((t) => t.organisation === 'acme');
    expect(res.body.items).toEqual(
      expected
        .map((t) => ({ name: t.name, status: t.status, created_at: new Date(t.created_at).toISOString() }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(new Set(res.body.items.map((t: any) => t.status))).toEqual(new Set(['active', 'inactive']));
  });

  it('pages of two to the end', async () => {
    const full = await r.get('/meeting_types', { key: admin });
    const { items } = await r.getAll('/meeting_types', { key: admin, query: { limit: 2 } });
    expect(items).toEqual(full.body.items);
  });
});

describe('GET /users', () => {
  it('every user: active, then deactivated, then invited; invited users have no permissions', async () => {
    const { items } = await r.getAll('/users', { key: admin, query: { limit: 4 } });
    expect(items.map((u) => u.email).sort()).toEqual(
      dataset.users
        .filter(acme)
        .map((u) => u.email)
        .sort(),
    );
    const statuses = items.map((u) => u.status);
    const rank = { active: 0, deactivated: 1, invited: 2 } as Record<string, number>;
    expect(statuses).toEqual([...statuses].sort((a, b) => rank[a]! - rank[b]!));
    for (const u of items) {
      if (u.status === 'invited') expect(u).not.toHaveProperty('permissions');
      else expect(Object.keys(u.permissions).sort()).toEqual(['settings_access', 'view_access']);
    }
    expect(items.find((u) => u.email === 'pat.obrien@acme.test')).toMatchObject({ name: null });
  });

  it('permission teams are names: every team for account_admin / all_teams, none for none / own_meetings', async () => {
    const { items } = await r.getAll('/users', { key: admin, query: { limit: 100 } });
    const byEmail = new Map(items.map((u) => [u.email, u]));
    const everyTeam = ['Engineering', 'Marketing', 'Sales', 'Support'];
    expect(byEmail.get('alice.moreau@acme.test')!.permissions).toEqual({
      settings_access: { level: 'account_admin', teams: everyTeam },
      view_access: { level: 'all_teams', teams: everyTeam },
    });
    expect(byEmail.get('sofia.costa@acme.test')!.permissions).toEqual({
      settings_access: { level: 'team_admin', teams: ['Marketing', 'Support'] },
      view_access: { level: 'multiple_teams', teams: ['Marketing', 'Support'] },
    });
    expect(byEmail.get('sam.rivera@acme.test')!.permissions).toEqual({
      settings_access: { level: 'none', teams: [] },
      view_access: { level: 'own_meetings', teams: [] },
    });
  });

  it('filters: status, settings_access, team', async () => {
    const invited = await r.get('/users', { key: admin, query: { status: 'invited' } });
    expect(invited.body.items.length).toBeGreaterThan(0);
    expect(invited.body.items.every((u: any) => u.status === 'invited')).toBe(true);
    const admins = await r.get('/users', { key: admin, query: { settings_access: 'team_admin' } });
    expect(admins.body.items.map((u: any) => u.email).sort()).toEqual(
      dataset.users
        .filter((u) => acme(u) && u.permissions.settings_access.level === 'team_admin')
        .map((u) => u.email)
        .sort(),
    );
    const support = await r.get('/users', { key: admin, query: { team: 'Support', status: 'deactivated' } });
    expect(support.body.items.map((u: any) => u.email)).toEqual(['dana.fischer@acme.test']);
  });

  it('status=invited with settings_access, or unknown values: 400', async () => {
    const both = await r.get('/users', { key: admin, query: { status: 'invited', settings_access: 'none' } });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatch(/invited/);
    const status = await r.get('/users', { key: admin, query: { status: 'gone' } });
    expect(status.status).toBe(400);
    expect(status.body.error).toContain('"status"');
    const level = await r.get('/users', { key: admin, query: { settings_access: 'ADMIN' } });
    expect(level.status).toBe(400);
    expect(level.body.error).toContain('"settings_access"');
  });

  it('anyone but an account admin: 403 with an error body', async () => {
    for (const label of ['team admin (Sales)', 'member: all teams view', 'connected app (Tom)']) {
      const key = label.startsWith('connected') ? `Bearer ${keyOf(label)}` : keyOf(label);
      const res = await r.get('/users', { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });
});

describe('list parameters shared by every list', () => {
  it.each([
    '/teams',
    '/team_members',
    '/meeting_types',
    '/users',
  ])('%s: limit 1..100, cursor checked', async (path) => {
    for (const limit of ['0', '101', 'x']) {
      const res = await r.get(path, { key: admin, query: { limit } });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('"limit"');
    }
    const bad = await r.get(path, { key: admin, query: { cursor: 'bm90IGEgY3Vyc29y' } });
    expect(bad.status).toBe(400);
    const ok = await r.get(path, { key: admin, query: { limit: 100 } });
    expect(ok.body.limit).toBe(100);
  });
});
