import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoDataset, demoPersonas } from '../../seeds/demo.js';
import type { MeetingSeed } from '../../seeds/format.js';
import { companyDomainOf, describeInvitee } from '../../src/domain/invitees.js';
import { hashSecret } from '../../src/domain/viewer.js';

const d = demoDataset();
const orgOf = (email: string) => d.users.find((u) => u.email === email)!.organisation;
const domainsOf = (slug: string) => d.organisations.find((o) => o.slug === slug)!.domains;
const count = <T>(items: readonly T[], predicate: (item: T) => boolean) => items.filter(predicate).length;

function sharingKind(m: MeetingSeed): string {
  const { users, teams, all_teams } = m.sharing;
  if (all_teams) return 'all_teams';
  if (teams.length > 1) return 'multiple_teams';
  if (teams.length === 1) return users.length > 0 ? 'individual_and_team' : 'single_team';
  return users.length > 0 ? 'individual' : 'private';
}

function invitees(m: MeetingSeed) {
  return m.calendar_invitees.map((i) => describeInvitee(i, domainsOf(orgOf(m.recorded_by))));
}

describe('the demo dataset', () => {
  it('is deterministic and uses neither Math.random nor the clock', () => {
    expect(demoDataset()).toEqual(d);
    for (const file of ['demo.ts', 'demo-content.ts', 'random.ts']) {
      const source = readFileSync(new URL(`../../seeds/${file}`, import.meta.url), 'utf8');
      expect(source).not.toMatch(/Math\.random|Date\.now|new Date\(\)/);
    }
  });

  it('has two organisations, one per plan, and an Acme with four teams', () => {
    expect(d.organisations.map((o) => [o.slug, o.plan])).toEqual([
      ['acme', 'team'],
      ['globex', 'individual'],
    ]);
    expect(d.teams.map((t) => t.name)).toEqual(['Sales', 'Engineering', 'Support', 'Marketing']);
  });

  it('has every user status, settings level and view level', () => {
    const statuses = new Set(d.users.map((u) => u.status));
    const settings = new Set(d.users.map((u) => u.permissions.settings_access.level));
    const views = new Set(d.users.map((u) => u.permissions.view_access.level));
    expect([...statuses].sort()).toEqual(['active', 'deactivated', 'invited']);
    expect([...settings].sort()).toEqual(['account_admin', 'none', 'team_admin']);
    expect([...views].sort()).toEqual(['all_teams', 'multiple_teams', 'own_meetings', 'team']);
    expect(count(d.users, (u) => u.name === null)).toBeGreaterThan(0);
    expect(count(d.users, (u) => u.team === null && u.organisation === 'acme')).toBeGreaterThan(0);
  });

  it('has a user CRM, a team CRM, and teams with members but no CRM', () => {
    const owners = d.crm_connections.map((c) => c.owner);
    expect(count(owners, (o) => 'user' in o)).toBe(1);
    expect(count(owners, (o) => 'team' in o)).toBe(1);
    const withCrm = new Set(owners.flatMap((o) => ('team' in o ? [o.team] : [])));
    const withoutCrm = d.teams.filter((t) => !withCrm.has(t.name) && d.users.some((u) => u.team === t.name));
    expect(withoutCrm.map((t) => t.name)).toEqual(['Engineering', 'Support', 'Marketing']);
    // The user with a CRM is in the team with one: their own CRM wins.
    const userOwner = owners.find((o) => 'user' in o) as { user: string };
    expect(withCrm.has(d.users.find((u) => u.email === userOwner.user)!.team!)).toBe(true);
  });

  it('has about 200 meetings shared in every way', () => {
    expect(d.meetings).toHaveLength(200);
    const kind = (k: string) => count(d.meetings, (m) => sharingKind(m) === k);
    expect(kind('private')).toBeGreaterThanOrEqual(20);
    expect(kind('individual')).toBeGreaterThanOrEqual(20);
    expect(kind('single_team')).toBeGreaterThanOrEqual(20);
    expect(kind('individual_and_team')).toBeGreaterThanOrEqual(10);
    expect(kind('multiple_teams')).toBeGreaterThanOrEqual(10);
    expect(kind('all_teams')).toBeGreaterThanOrEqual(5);
  });

  it('has an external recorder sharing with Acme users, and Acme meetings shared with that recorder', () => {
    const external = d.meetings.filter((m) => orgOf(m.recorded_by) === 'globex');
    const sharedWithAcme = external.filter((m) => m.sharing.users.some((e) => orgOf(e) === 'acme'));
    expect(sharedWithAcme.length).toBeGreaterThanOrEqual(5);
    expect(count(external, (m) => sharingKind(m) === 'private')).toBeGreaterThan(0);
    expect(
      count(
        d.meetings,
        (m) => orgOf(m.recorded_by) === 'acme' && m.sharing.users.includes('gina.hart@globex.test'),
      ),
    ).toBeGreaterThan(0);
  });

  it('has active and inactive meeting types, used and unused, and meetings without a type', () => {
    const inactive = d.meeting_types.filter((t) => t.status === 'inactive').map((t) => t.name);
    expect(inactive.length).toBeGreaterThan(0);
    expect(count(d.meeting_types, (t) => t.status === 'active')).toBeGreaterThan(0);
    expect(
      count(d.meetings, (m) => m.meeting_type !== null && inactive.includes(m.meeting_type)),
    ).toBeGreaterThan(0);
    expect(count(d.meetings, (m) => m.meeting_type === null)).toBeGreaterThan(0);
  });

  it('has internal-only meetings, several companies and ties in invitee counts', () => {
    expect(count(d.meetings, (m) => invitees(m).every((i) => !i.isExternal))).toBeGreaterThanOrEqual(20);
    const companies = new Set(d.meetings.map((m) => companyDomainOf(invitees(m))).filter(Boolean));
    expect(companies.size).toBeGreaterThanOrEqual(5);
    const ties = d.meetings.filter((m) => {
      const counts = new Map<string, number>();
      for (const i of invitees(m))
        if (i.isExternal) counts.set(i.emailDomain!, (counts.get(i.emailDomain!) ?? 0) + 1);
      const top = Math.max(0, ...counts.values());
      return [...counts.values()].filter((c) => c === top).length > 1;
    });
    expect(ties.length).toBeGreaterThan(0);
    expect(count(d.meetings, (m) => m.calendar_invitees.some((i) => i.email === null))).toBeGreaterThan(0);
  });

  it('has invitees that match CRM contacts and companies', () => {
    const emails = new Set(d.meetings.flatMap((m) => m.calendar_invitees.map((i) => i.email)));
    for (const c of d.crm_connections) {
      expect(c.contacts.some((x) => emails.has(x.email))).toBe(true);
      expect(c.companies.some((x) => [...emails].some((e) => e?.endsWith(`@${x.domain}`)))).toBe(true);
    }
  });

  it('has content: transcripts of 5 to 40 matched lines, summaries, action items, highlights', () => {
    const withTranscript = d.meetings.filter((m) => m.transcript);
    expect(withTranscript.length).toBeGreaterThan(190);
    for (const m of withTranscript) {
      expect(m.transcript!.length).toBeGreaterThanOrEqual(5);
      expect(m.transcript!.length).toBeLessThanOrEqual(40);
      expect(m.transcript!.some((e) => e.speaker.matched_calendar_invitee_email === m.recorded_by)).toBe(
        true,
      );
    }
    expect(
      count(d.meetings, (m) => m.default_summary?.markdown_formatted.startsWith('## ') === true),
    ).toBeGreaterThan(190);
    expect(count(d.meetings, (m) => (m.action_items?.length ?? 0) > 0)).toBeGreaterThan(50);
    expect(count(d.meetings, (m) => (m.highlights?.length ?? 0) > 0)).toBeGreaterThan(50);
  });

  it('leaves the newest few meetings without a summary (content not ready), not shared yet', () => {
    const newestFirst = [...d.meetings].sort((a, b) => b.recording_id - a.recording_id);
    const notReady = d.meetings.filter((m) => !m.default_summary);
    expect(notReady.length).toBe(2);
    expect(new Set(notReady)).toEqual(new Set(newestFirst.slice(0, 2)));
    expect(count(notReady, (m) => m.transcript !== undefined)).toBe(1);
    // Not shared yet: only their recorders see them, so the account admin's newest are all ready.
    for (const m of notReady) expect(m.sharing).toEqual({ users: [], teams: [], all_teams: false });
  });

  it('has meetings that start recording at the same instant', () => {
    const starts = d.meetings.map((m) => Date.parse(m.recording_start_time));
    expect(new Set(starts).size).toBeLessThan(starts.length);
  });

  it('uses .test hosts everywhere, except meeting links on meetings.example', () => {
    const json = JSON.stringify(d);
    const hosts = new Set([...json.matchAll(/https?:\/\/([^/"]+)/g)].map((m) => m[1]!));
    const emailDomains = new Set([...json.matchAll(/@([a-z0-9.-]+)"/gi)].map((m) => m[1]!.toLowerCase()));
    for (const host of [...hosts, ...emailDomains]) expect(host).toMatch(/\.test$|^meetings\.example$/);
  });
});

describe('the demo personas', () => {
  it('each has a long fixed key stored for the right user and kind', () => {
    expect(demoPersonas.length).toBeGreaterThanOrEqual(10);
    expect(new Set(demoPersonas.map((p) => p.apiKey)).size).toBe(demoPersonas.length);
    for (const p of demoPersonas) {
      expect(p.apiKey.length).toBeGreaterThanOrEqual(40);
      expect(p.label.length).toBeLessThanOrEqual(28);
      const stored = d.api_keys.find((k) => k.key === p.apiKey);
      expect(stored).toMatchObject({ user: p.email, kind: p.kind });
      expect(hashSecret(p.apiKey)).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('are listed, with their keys, in seeds/README.md', () => {
    const readme = readFileSync(new URL('../../seeds/README.md', import.meta.url), 'utf8');
    for (const p of demoPersonas)
      expect(readme).toContain(`| ${p.label} | ${p.name} | \`${p.email}\` | \`${p.apiKey}\` |`);
  });

  it('covers the admin levels, view levels, the external user, a connected app and refused keys', () => {
    const userOf = (p: (typeof demoPersonas)[number]) => d.users.find((u) => u.email === p.email)!;
    const usable = demoPersonas.filter((p) => !p.label.includes('401'));
    expect(new Set(usable.map((p) => userOf(p).permissions.view_access.level)).size).toBe(4);
    expect(new Set(usable.map((p) => userOf(p).permissions.settings_access.level)).size).toBe(3);
    expect(usable.some((p) => userOf(p).organisation === 'globex')).toBe(true);
    expect(demoPersonas.filter((p) => p.kind === 'connected_app')).toHaveLength(1);
    const refused = demoPersonas.filter((p) => p.label.includes('401'));
    expect(refused.map((p) => userOf(p).status).sort()).toEqual(['active', 'deactivated', 'invited']);
    expect(
      d.api_keys.find((k) => k.key === refused.find((p) => userOf(p).status === 'active')!.apiKey)
        ?.revoked_at,
    ).toBeTruthy();
  });
});
