/** GET /external/v1/meetings: shape, every filter, include flags, pagination, errors, OAuth refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { keyOf } from '../support/app.js';
import { listedByDefault, visibleRecordings } from '../support/oracle.js';
import { type RestTestApp, startRestTestApp } from './support.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const adminEmail = 'alice.moreau@acme.test';
const oauth = `Bearer ${keyOf('connected app (Tom)')}`;

const requiredFields = [
  'title',
  'meeting_title',
  'meeting_type',
  'recording_id',
  'url',
  'share_url',
  'created_at',
  'scheduled_start_time',
  'scheduled_end_time',
  'recording_start_time',
  'recording_end_time',
  'calendar_invitees_domains_type',
  'shared_with',
  'transcript_language',
  'calendar_invitees',
  'recorded_by',
  'meeting_url',
  // An extension of this service (docs/api/mirroring.md).
  'updated_at',
];
const optionalFields = ['transcript', 'default_summary', 'action_items', 'highlights', 'crm_matches'];

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

const all = (query: Record<string, any> = {}, key = admin) =>
  r.getAll('/meetings', { key, query: { limit: 100, ...query } }).then((x) => x.items);
const ids = (items: any[]) => items.map((m) => m.recording_id as number);

describe('GET /meetings: shape and pagination', () => {
  it('a first page of 10 with the envelope, required fields, and nothing optional by default', async () => {
    const res = await r.get('/meetings', { key: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'limit', 'next_cursor']);
    expect(res.body.limit).toBe(10);
    expect(res.body.items).toHaveLength(10);
    expect(typeof res.body.next_cursor).toBe('string');
    for (const m of res.body.items) {
      expect(Object.keys(m).sort()).toEqual([...requiredFields].sort());
      for (const field of optionalFields) expect(m).not.toHaveProperty(field);
      for (const i of m.calendar_invitees) {
        expect(Object.keys(i).sort()).toEqual(['email', 'email_domain', 'is_external', 'name']);
      }
      expect(Object.keys(m.recorded_by).sort()).toEqual(['email', 'email_domain', 'name', 'team']);
      expect(m.created_at).toMatch(/Z$/);
      expect(m.recording_start_time).toMatch(/Z$/);
      expect(['only_internal', 'one_or_more_external']).toContain(m.calendar_invitees_domains_type);
      expect(['no_teams', 'single_team', 'multiple_teams', 'all_teams']).toContain(m.shared_with);
    }
  });

  it('paging by 7 to the end: every listed meeting once, newest first, the last cursor null', async () => {
    const { items, pages } = await r.getAll('/meetings', { key: admin, query: { limit: 7 } });
    expect(new Set(ids(items)).size).toBe(items.length);
    expect(new Set(ids(items))).toEqual(listedByDefault(dataset, adminEmail));
    for (const page of pages.slice(0, -1)) {
      expect(page.body.limit).toBe(7);
      expect(page.body.items).toHaveLength(7);
    }
    expect(pages.at(-1)!.body.next_cursor).toBeNull();
    const order = items.map((m) => [m.recording_start_time, m.recording_id]);
    const sorted = [...order].sort((a, b) => (a[0] === b[0] ? b[1] - a[1] : b[0].localeCompare(a[0])));
    expect(order).toEqual(sorted);
  });

  it('the default page size pages through to the same sequence', async () => {
    const { items, pages } = await r.getAll('/meetings', { key: admin });
    expect(pages[0]!.body.limit).toBe(10);
    expect(ids(items)).toEqual(ids(await all()));
  });

  it('the same meetings, in the same order and with the same values, through GraphQL', async () => {
    const rest = await all({ include_action_items: true, include_highlights: true });
    const nodes: any[] = [];
    let after: string | null = null;
    for (;;) {
      const res = await r.t.graphql(
        `query($after: String) { meetings(first: 100, after: $after) {
          edges { node { recordingId title meetingTitle createdAt recordingStartTime sharedWith
            recordedBy { email team } actionItems { description } highlights { type text summary } } }
          pageInfo { hasNextPage endCursor } } }`,
        { after },
        admin,
      );
      expect(res.body.errors).toBeUndefined();
      nodes.push(...res.body.data.meetings.edges.map((e: any) => e.node));
      if (!res.body.data.meetings.pageInfo.hasNextPage) break;
      after = res.body.data.meetings.pageInfo.endCursor;
    }
    expect(ids(rest)).toEqual(nodes.map((n) => n.recordingId));
    rest.forEach((m, i) => {
      const n = nodes[i];
      expect(m.title).toBe(n.title);
      expect(m.meeting_title).toBe(n.meetingTitle);
      expect(m.created_at).toBe(n.createdAt);
      expect(m.shared_with).toBe(n.sharedWith.toLowerCase());
      expect(m.recorded_by.email).toBe(n.recordedBy.email);
      expect(m.action_items.map((a: any) => a.description)).toEqual(
        n.actionItems.map((a: any) => a.description),
      );
      expect(m.highlights.map((h: any) => h.text ?? null)).toEqual(n.highlights.map((h: any) => h.text));
    });
  });

  it('a cursor made for other filters, for another list, or that does not decode: 400', async () => {
    const sales = await r.get('/meetings', { key: admin, query: { teams: ['Sales'] } });
    const cursor = sales.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const other = await r.get('/meetings', { key: admin, query: { cursor, teams: ['Support'] } });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatch(/cursor/i);
    const teams = await r.get('/teams', { key: admin, query: { limit: 1 } });
    const wrongList = await r.get('/meetings', { key: admin, query: { cursor: teams.body.next_cursor } });
    expect(wrongList.status).toBe(400);
    const garbage = await r.get('/meetings', { key: admin, query: { cursor: '!!not a cursor!!' } });
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ error: expect.stringMatching(/cursor/i) });
  });
});

describe('GET /meetings: filters', () => {
  it('teams[]: the recorder’s team, OR within the list; []-, %5B%5D- and bare forms alike', async () => {
    const sales = await all({ teams: ['Sales'] });
    expect(sales.length).toBeGreaterThan(0);
    expect(sales.every((m) => m.recorded_by.team === 'Sales')).toBe(true);
    const two = await all({ teams: ['Sales', 'Support'] });
    expect(new Set(two.map((m) => m.recorded_by.team))).toEqual(new Set(['Sales', 'Support']));
    expect(await all({ teams: ['No such team'] })).toEqual([]);

    const literal = await r.get('/meetings', { key: admin, query: 'limit=100&teams[]=Sales' });
    const encoded = await r.get('/meetings', { key: admin, query: 'limit=100&teams%5B%5D=Sales' });
    const bare = await r.get('/meetings', { key: admin, query: 'limit=100&teams=Sales' });
    const mixed = await r.get('/meetings', { key: admin, query: 'limit=100&teams[]=Sales&teams=Support' });
    expect(ids(literal.body.items)).toEqual(ids(sales).slice(0, 100));
    expect(ids(encoded.body.items)).toEqual(ids(literal.body.items));
    expect(ids(bare.body.items)).toEqual(ids(literal.body.items));
    expect(ids(mixed.body.items)).toEqual(ids(two).slice(0, 100));
  });

  it('recorded_by[]: the recorders named; external recorders only when named', async () => {
    const sam = keyOf('member: own meetings + CRM');
    const samEmail = 'sam.rivera@acme.test';
    const external = [...visibleRecordings(dataset, samEmail)]
      .map((id) => dataset.meetings.find((m) => m.recording_id === id)!)
      .filter((m) => m.recorded_by.endsWith('@globex.test'));
    expect(external.length).toBeGreaterThan(0);
    const unfiltered = await all({}, sam);
    expect(unfiltered.some((m) => m.recorded_by.email.endsWith('@globex.test'))).toBe(false);
    const named = await all({ recorded_by: ['GINA.HART@globex.test'] }, sam);
    expect(new Set(ids(named))).toEqual(new Set(external.map((m) => m.recording_id)));
    const onlyTeams = await all({ teams: ['Sales'] }, sam);
    expect(onlyTeams.some((m) => m.recorded_by.email.endsWith('@globex.test'))).toBe(false);

    const tom = await all({ recorded_by: ['tom.baker@acme.test', 'noah.kim@acme.test'] });
    expect(tom.length).toBeGreaterThan(0);
    expect(new Set(tom.map((m) => m.recorded_by.email))).toEqual(
      new Set(['tom.baker@acme.test', 'noah.kim@acme.test']),
    );
  });

  it('calendar_invitees_domains[]: the meeting’s company, exact and case-insensitive', async () => {
    const everything = await all();
    const byDomain = await all({ calendar_invitees_domains: ['INITECH.test'] });
    expect(byDomain.length).toBeGreaterThan(0);
    for (const m of byDomain) {
      expect(m.calendar_invitees.some((i: any) => i.email_domain === 'initech.test' && i.is_external)).toBe(
        true,
      );
    }
    const two = await all({ calendar_invitees_domains: ['initech.test', 'hooli.test'] });
    expect(two.length).toBeGreaterThan(byDomain.length);
    expect(await all({ calendar_invitees_domains: ['initech'] })).toEqual([]);
    expect(two.length).toBeLessThan(everything.length);
  });

  it('calendar_invitees_domains_type: all (default), only_internal, one_or_more_external', async () => {
    const everything = await all();
    const explicitAll = await all({ calendar_invitees_domains_type: 'all' });
    const internal = await all({ calendar_invitees_domains_type: 'only_internal' });
    const external = await all({ calendar_invitees_domains_type: 'one_or_more_external' });
    expect(ids(explicitAll)).toEqual(ids(everything));
    expect(internal.length).toBeGreaterThan(0);
    expect(external.length).toBeGreaterThan(0);
    expect(internal.every((m) => m.calendar_invitees_domains_type === 'only_internal')).toBe(true);
    expect(internal.every((m) => m.calendar_invitees.every((i: any) => !i.is_external))).toBe(true);
    expect(external.every((m) => m.calendar_invitees_domains_type === 'one_or_more_external')).toBe(true);
    expect(internal.length + external.length).toBe(everything.length);
  });

  it('created_after / created_before: strict bounds, with Z or an offset', async () => {
    const everything = await all();
    const pivot = everything[Math.floor(everything.length / 2)]!.created_at as string;
    const after = await all({ created_after: pivot });
    const before = await all({ created_before: pivot });
    expect(after.every((m) => m.created_at > pivot)).toBe(true);
    expect(before.every((m) => m.created_at < pivot)).toBe(true);
    const atPivot = everything.filter((m) => m.created_at === pivot).length;
    expect(after.length + before.length + atPivot).toBe(everything.length);

    // The same instant written with a +02:00 offset.
    const instant = new Date(pivot);
    const local = new Date(instant.getTime() + 2 * 3600_000).toISOString().replace(/\.\d+Z$/, '+02:00');
    expect(ids(await all({ created_after: local }))).toEqual(ids(after));

    const window = await all({ created_after: before.at(-1)!.created_at, created_before: pivot });
    expect(window.every((m) => m.created_at > before.at(-1)!.created_at && m.created_at < pivot)).toBe(true);
  });

  it('meeting_type: exact name; an unknown name gives an empty list, not an error', async () => {
    const types = await r.get('/meeting_types', { key: admin });
    const everything = await all();
    for (const type of types.body.items) {
      const typed = await all({ meeting_type: type.name });
      expect(typed.every((m) => m.meeting_type === type.name)).toBe(true);
      expect(typed.length).toBe(everything.filter((m) => m.meeting_type === type.name).length);
    }
    const unknown = await r.get('/meetings', { key: admin, query: { meeting_type: 'No such type' } });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ limit: 10, next_cursor: null, items: [] });
  });

  it('every filter at once combines with AND', async () => {
    const query = {
      teams: ['Sales'],
      recorded_by: ['tom.baker@acme.test', 'sam.rivera@acme.test', 'noah.kim@acme.test'],
      calendar_invitees_domains_type: 'one_or_more_external',
      created_after: '2026-01-01T00:00:00Z',
      created_before: '2026-12-31T00:00:00Z',
    };
    const combined = await all(query);
    const sales = await all({ teams: ['Sales'] });
    const expected = sales.filter(
      (m) =>
        query.recorded_by.includes(m.recorded_by.email) &&
        m.calendar_invitees_domains_type === 'one_or_more_external' &&
        m.created_at > query.created_after &&
        m.created_at < query.created_before,
    );
    expect(combined.length).toBeGreaterThan(0);
    expect(ids(combined)).toEqual(ids(expected));
  });
});

describe('GET /meetings: include flags', () => {
  it('include_transcript: the transcript, and matched_speaker_display_name on invitees', async () => {
    const res = await r.get('/meetings', { key: admin, query: { include_transcript: true, limit: 20 } });
    expect(res.status).toBe(200);
    let matched = 0;
    for (const m of res.body.items) {
      expect(m).toHaveProperty('transcript');
      for (const field of ['default_summary', 'action_items', 'highlights', 'crm_matches'])
        expect(m).not.toHaveProperty(field);
      for (const i of m.calendar_invitees) {
        expect(i).toHaveProperty('matched_speaker_display_name');
        if (i.matched_speaker_display_name) matched++;
      }
      for (const e of m.transcript ?? []) {
        expect(e.timestamp).toMatch(/^\d{2}:\d{2}:\d{2}$/);
        expect(Object.keys(e.speaker).sort()).toEqual(['display_name', 'matched_calendar_invitee_email']);
      }
    }
    expect(matched).toBeGreaterThan(0);
    expect(res.body.items.some((m: any) => m.transcript?.length > 0)).toBe(true);
  });

  it('include_summary, include_action_items, include_highlights, include_crm_matches', async () => {
    const res = await r.get('/meetings', {
      key: admin,
      query: {
        include_summary: true,
        include_action_items: true,
        include_highlights: true,
        include_crm_matches: true,
        limit: 50,
      },
    });
    expect(res.status).toBe(200);
    let withoutText = 0;
    for (const m of res.body.items) {
      expect(m).not.toHaveProperty('transcript');
      expect(m.calendar_invitees.every((i: any) => !('matched_speaker_display_name' in i))).toBe(true);
      expect(m).toHaveProperty('default_summary');
      for (const a of m.action_items) {
        expect(a.recording_playback_url.startsWith(`${m.url}?timestamp=`)).toBe(true);
        expect(Object.keys(a.assignee).sort()).toEqual(['email', 'name', 'team']);
      }
      for (const h of m.highlights) {
        if ('text' in h) expect(h.text).not.toBe(h.summary);
        else withoutText++;
      }
      expect(Object.keys(m.crm_matches).sort()).toEqual(['companies', 'contacts', 'deals', 'error']);
    }
    expect(withoutText).toBeGreaterThan(0);
    expect(res.body.items.some((m: any) => m.default_summary?.markdown_formatted)).toBe(true);
    expect(res.body.items.some((m: any) => m.action_items.length > 0)).toBe(true);
  });

  it('CRM matches come from the viewer’s CRM; none connected: error "no CRM connected"', async () => {
    const tina = keyOf('member: team view');
    const res = await r.get('/meetings', { key: tina, query: { include_crm_matches: true } });
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    for (const m of res.body.items)
      expect(m.crm_matches).toEqual({ contacts: [], companies: [], deals: [], error: 'no CRM connected' });
    const tom = await r.get('/meetings', {
      key: keyOf('team admin (Sales)'),
      query: { include_crm_matches: true, calendar_invitees_domains: ['initech.test'] },
    });
    expect(tom.body.items.length).toBeGreaterThan(0);
    expect(tom.body.items.every((m: any) => m.crm_matches.error === null)).toBe(true);
    expect(tom.body.items.some((m: any) => m.crm_matches.deals.length > 0)).toBe(true);
  });

  it('explicit false flags leave every field out, as the SDK sends them', async () => {
    const res = await r.get('/meetings', {
      key: admin,
      query: {
        include_transcript: false,
        include_summary: false,
        include_action_items: false,
        include_highlights: false,
        include_crm_matches: false,
      },
    });
    expect(res.status).toBe(200);
    for (const m of res.body.items) for (const field of optionalFields) expect(m).not.toHaveProperty(field);
  });
});

describe('GET /meetings: OAuth connected apps', () => {
  it('include_summary=true and include_transcript=true are refused with the exact messages', async () => {
    const summary = await r.get('/meetings', { key: oauth, query: { include_summary: true } });
    expect(summary.status).toBe(400);
    expect(summary.body).toEqual({ error: 'OAuth users are not allowed to include summary.' });
    const transcript = await r.get('/meetings', { key: oauth, query: { include_transcript: true } });
    expect(transcript.status).toBe(400);
    expect(transcript.body).toEqual({ error: 'OAuth users are not allowed to include transcript.' });
  });

  it('the other flags, and every flag sent as false, are fine', async () => {
    const res = await r.get('/meetings', {
      key: oauth,
      query: {
        include_transcript: false,
        include_summary: false,
        include_action_items: true,
        include_highlights: true,
        include_crm_matches: true,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(res.body.items.every((m: any) => !('default_summary' in m) && 'action_items' in m)).toBe(true);
  });
});

describe('GET /meetings: bad parameters are 400 naming the parameter', () => {
  const cases: [string, string, string][] = [
    ['limit=0', 'limit', 'limit below 1'],
    ['limit=101', 'limit', 'limit above 100'],
    ['limit=ten', 'limit', 'limit not an integer'],
    ['limit=2.5', 'limit', 'limit a decimal'],
    ['limit=5&limit=6', 'limit', 'limit twice'],
    ['include_summary=yes', 'include_summary', 'a boolean other than true/false'],
    ['include_transcript=1', 'include_transcript', 'a boolean as 1'],
    ['include_highlights=TRUE', 'include_highlights', 'a boolean in capitals'],
    ['include_crm_matches=', 'include_crm_matches', 'an empty boolean'],
    ['created_after=2026-01-01', 'created_after', 'a date without time'],
    ['created_after=2026-01-01T00:00:00', 'created_after', 'a date-time without zone'],
    ['created_before=yesterday', 'created_before', 'not a date'],
    ['created_before=2026-02-30T00:00:00Z', 'created_before', 'an impossible date'],
    ['calendar_invitees_domains_type=some', 'calendar_invitees_domains_type', 'an unknown enum value'],
    ['recorded_by[]=not-an-email', 'recorded_by[]', 'not an email'],
    ['meeting_type=a&meeting_type=b', 'meeting_type', 'a scalar twice'],
  ];
  it.each(cases)('%s (%s: %s)', async (query, parameter) => {
    const res = await r.get('/meetings', { key: admin, query });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toContain(`"${parameter}"`);
  });

  it('unknown query parameters are ignored', async () => {
    const res = await r.get('/meetings', { key: admin, query: 'page_size=3&foo=bar' });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(10);
  });
});
