/**
 * The official TypeScript SDK (fathom-typescript), unmodified, pointed at our base URL: its zod
 * schemas reject anything off-contract, so every call here succeeding is the compatibility proof.
 */
import { Fathom } from 'fathom-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf } from '../support/app.js';
import { type RestTestApp, startRestTestApp } from './support.js';

let r: RestTestApp;
let fathom: Fathom;
const admin = keyOf('account admin');

beforeAll(async () => {
  r = await startRestTestApp();
  fathom = new Fathom({ serverURL: `${r.url}/external/v1`, security: { apiKeyAuth: admin } });
});
afterAll(() => r.close());

describe('fathom-typescript against /external/v1', () => {
  it('lists meetings with every filter and include flag, paging to the end', async () => {
    const request = {
      calendarInviteesDomainsType: 'one_or_more_external' as const,
      createdAfter: '2026-01-01T00:00:00Z',
      createdBefore: '2026-12-31T23:59:59+02:00',
      includeActionItems: true,
      includeCrmMatches: true,
      includeSummary: true,
      includeTranscript: true,
      recordedBy: ['tom.baker@acme.test', 'sam.rivera@acme.test', 'noah.kim@acme.test'],
      teams: ['Sales'],
    };
    const sdkIds: number[] = [];
    let pages = 0;
    for await (const page of await fathom.listMeetings(request)) {
      pages++;
      expect(page!.result.limit).toBe(10);
      for (const m of page!.result.items) {
        expect(m.createdAt).toBeInstanceOf(Date);
        expect(m.recordedBy.team).toBe('Sales');
        expect(m.calendarInviteesDomainsType).toBe('one_or_more_external');
        expect(m.transcript).toBeDefined();
        expect(m.defaultSummary).toBeDefined();
        expect(m.actionItems).toBeDefined();
        expect(m.crmMatches).toBeDefined();
        sdkIds.push(m.recordingId);
      }
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(sdkIds).size).toBe(sdkIds.length);
    const rest = await r.getAll('/meetings', {
      key: admin,
      query: {
        calendar_invitees_domains_type: 'one_or_more_external',
        created_after: request.createdAfter,
        created_before: request.createdBefore,
        recorded_by: request.recordedBy,
        teams: request.teams,
      },
    });
    expect(sdkIds).toEqual(rest.items.map((m) => m.recording_id));
  });

  it('lists meetings by company domain, and with no filter at all', async () => {
    const byDomain = await fathom.listMeetings({ calendarInviteesDomains: ['initech.test', 'hooli.test'] });
    expect(byDomain.result.items.length).toBeGreaterThan(0);
    for (const m of byDomain.result.items)
      expect(
        m.calendarInvitees.some((i) => ['initech.test', 'hooli.test'].includes(i.emailDomain ?? '')),
      ).toBe(true);
    let count = 0;
    for await (const page of await fathom.listMeetings()) count += page!.result.items.length;
    const rest = await r.getAll('/meetings', { key: admin, query: { limit: 100 } });
    expect(count).toBe(rest.items.length);
  });

  it('the deprecated meetingType enum is a meeting type name here: an empty list, not an error', async () => {
    const res = await fathom.listMeetings({ meetingType: 'internal' });
    expect(res.result.items).toEqual([]);
    expect(res.result.nextCursor).toBeNull();
  });

  it('lists teams and team members', async () => {
    const teams = await fathom.listTeams({});
    expect(teams.result.items.map((t) => t.name)).toEqual(['Engineering', 'Marketing', 'Sales', 'Support']);
    expect(teams.result.items[0]!.createdAt).toBeInstanceOf(Date);
    const members: string[] = [];
    for await (const page of await fathom.listTeamMembers({}))
      members.push(...page!.result.items.map((m) => m.email));
    expect(members.length).toBeGreaterThan(0);
    const sales = await fathom.listTeamMembers({ team: 'Sales' });
    expect(sales.result.items.map((m) => m.email).sort()).toEqual([
      'noah.kim@acme.test',
      'sam.rivera@acme.test',
      'tom.baker@acme.test',
    ]);
  });

  it('gets a summary, directly and delivered, and has a transcript delivered', async () => {
    const first = await fathom.listMeetings({ includeSummary: true });
    const id = first.result.items.find((m) => m.defaultSummary)!.recordingId;
    const summary = await fathom.getRecordingSummary({ recordingId: id });
    expect(summary).toMatchObject({ summary: { markdownFormatted: expect.any(String) } });
    // The SDK's transcript call requires destinationUrl: it only knows the delivered form.
    const transcript = await fathom.getRecordingTranscript({
      recordingId: id,
      destinationUrl: `${r.receiverUrl}/transcript`,
    });
    expect(transcript).toEqual({ destinationUrl: `${r.receiverUrl}/transcript` });
    const delivered = await fathom.getRecordingSummary({
      recordingId: id,
      destinationUrl: `${r.receiverUrl}/summary`,
    });
    expect(delivered).toEqual({ destinationUrl: `${r.receiverUrl}/summary` });
  });

  it('creates and deletes a webhook', async () => {
    const webhook = await fathom.createWebhook({
      destinationUrl: `${r.receiverUrl}/sdk`,
      triggeredFor: ['my_recordings', 'shared_external_recordings'],
      includeSummary: true,
      includeTranscript: true,
    });
    expect(webhook).toMatchObject({
      url: `${r.receiverUrl}/sdk`,
      secret: expect.stringMatching(/^whsec_/),
      includeSummary: true,
      includeActionItems: false,
      triggeredFor: ['my_recordings', 'shared_external_recordings'],
    });
    expect(webhook?.createdAt).toBeInstanceOf(Date);
    await fathom.deleteWebhook({ id: webhook!.id });
    const listed = await r.t.graphql('{ webhooks { id } }', {}, admin);
    expect(listed.body.data.webhooks).not.toContainEqual({ id: webhook!.id });
  });

  it('an OAuth connected app (Bearer) lists meetings; asking for summaries is refused', async () => {
    const app = new Fathom({
      serverURL: `${r.url}/external/v1`,
      security: { bearerAuth: keyOf('connected app (Tom)') },
    });
    const res = await app.listMeetings({ includeActionItems: true });
    expect(res.result.items.length).toBeGreaterThan(0);
    // The SDK maps a 400 on this operation to an empty result rather than an error.
    const refused = await app.listMeetings({ includeSummary: true });
    expect(refused.result).toBeUndefined();
  });
});
