/**
 * For every demo persona and every demo meeting, `meetings`, `meeting`, `node` and the content
 * fields agree with the access oracle (test/support/oracle.ts, written from domain.md alone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset, demoPersonas } from '../../seeds/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { listedByDefault, visibleRecordings } from '../support/oracle.js';

const dataset = demoDataset();
const personas = demoPersonas.filter((p) => !p.label.includes('(401)'));
const allRecorders = [...new Set(dataset.meetings.map((m) => m.recorded_by))];
const globalId = (recordingId: number) => Buffer.from(`Meeting:${recordingId}`).toString('base64');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function listAll(key: string, filter: Record<string, unknown> = {}): Promise<number[]> {
  const ids: number[] = [];
  let after: string | null = null;
  do {
    const res = await t.graphql(
      `query($filter: MeetingFilter, $after: String) {
        meetings(filter: $filter, first: 100, after: $after) {
          edges { node { recordingId } } pageInfo { hasNextPage endCursor } } }`,
      { filter, after },
      key,
    );
    expect(res.body.errors).toBeUndefined();
    const { edges, pageInfo } = res.body.data.meetings;
    ids.push(...edges.map((e: { node: { recordingId: number } }) => e.node.recordingId));
    after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
  } while (after);
  return ids;
}

describe.each(personas.map((p) => [p.label, p] as const))('%s', (_label, persona) => {
  const key = persona.kind === 'connected_app' ? `Bearer ${persona.apiKey}` : persona.apiKey;
  const visible = visibleRecordings(dataset, persona.email);

  it('meetings lists exactly what domain.md allows, external recorders only when named', async () => {
    const listed = await listAll(key);
    expect(new Set(listed)).toEqual(listedByDefault(dataset, persona.email));
    expect(listed.length).toBe(new Set(listed).size);
    const named = await listAll(key, { recordedBy: allRecorders });
    expect(new Set(named)).toEqual(visible);
  });

  it('meeting(recordingId) finds exactly the visible meetings', async () => {
    const found: number[] = [];
    for (const m of dataset.meetings) {
      const res = await t.graphql(
        'query($id: Int!) { meeting(recordingId: $id) { recordingId } }',
        { id: m.recording_id },
        key,
      );
      expect(res.body.errors).toBeUndefined();
      if (res.body.data.meeting) found.push(res.body.data.meeting.recordingId);
    }
    expect(new Set(found)).toEqual(visible);
  });

  it('nodes(ids) and every content field agree, for guessed and foreign ids alike', async () => {
    const ids = dataset.meetings.map((m) => m.recording_id);
    const res = await t.graphql(
      `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Meeting {
        recordingId transcript { text } defaultSummary { templateName } actionItems { description }
        highlights { type } crmMatches { error } } } }`,
      { ids: [...ids.map(globalId), globalId(999_999)] },
      key,
    );
    expect(res.body.errors).toBeUndefined();
    const nodes: ({ recordingId: number; transcript: unknown; defaultSummary: unknown } | null)[] =
      res.body.data.nodes;
    expect(nodes.at(-1)).toBeNull();
    const seen = new Set(nodes.filter((n) => n !== null).map((n) => n!.recordingId));
    expect(seen).toEqual(visible);
    for (const [i, meeting] of dataset.meetings.entries()) {
      const node = nodes[i];
      if (!node) continue;
      expect(node.transcript === null).toBe(!meeting.transcript);
      expect(node.defaultSummary === null).toBe(!meeting.default_summary);
    }
  });
});
