/**
 * Response keys come in the order of the selection set (GraphQL spec, "Executing selection sets"),
 * whichever executor answers: graphql-js on a document's first run, graphql-jit from its second,
 * the REST door's in-process hand-over, and subscriptions. Asynchronous fields (loaders) are
 * interleaved with synchronous ones so an executor that fills objects as fields resolve shows.
 * JSON.parse keeps key order, so Object.keys of the parsed body is what a client sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOf, ingest, recordingJson, SERVICE_TOKEN_SHA256 } from '../delivery/support.js';
import { type RestTestApp, startRestTestApp } from '../rest/support.js';
import { keyOf } from '../support/app.js';

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp({ INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256, SUBSCRIPTION_POLL_MS: '100' });
});
afterAll(() => r.close());

const admin = keyOf('account admin');

async function someRecordingId(): Promise<number> {
  const res = await r.t.graphql('{ meetings(first: 1) { edges { node { recordingId } } } }', {}, admin);
  return res.body.data.meetings.edges[0].node.recordingId;
}

/** The same (new) document three times: run 1 interpreted, runs 2 and 3 compiled. */
async function thrice(query: string, variables: Record<string, unknown> = {}) {
  const bodies = [];
  for (let run = 1; run <= 3; run++) {
    const res = await r.t.graphql(query, variables, admin);
    expect(res.body.errors, `run ${run}`).toBeUndefined();
    bodies.push(res.body.data);
  }
  return bodies;
}

describe('response key order follows the selection set', () => {
  it('an asynchronous field before a synchronous one, on every run', async () => {
    const id = await someRecordingId();
    for (const [run, data] of (
      await thrice(`query AsyncFirst { meeting(recordingId: ${id}) { recordedBy { name } title } }`)
    ).entries()) {
      expect(Object.keys(data.meeting), `run ${run + 1}`).toEqual(['recordedBy', 'title']);
    }
  });

  it('at every level: root fields, connections, lists, aliases, fragments, merged fields, @include', async () => {
    const id = await someRecordingId();
    const query = /* GraphQL */ `
      query Interleaved($id: Int!, $yes: Boolean!, $no: Boolean!) {
        single: meeting(recordingId: $id) {
          defaultSummary { markdownFormatted templateName }
          title
          recordedBy { team name email }
          url
        }
        viewer { email name }
        meetings(first: 3) {
          pageInfo { endCursor hasNextPage }
          edges {
            node {
              recordedBy { team name }
              title
              highlights { text }
              when: createdAt
              ...Content
              actionItems @include(if: $yes) { description completed }
              sharedWith
              meetingType @include(if: $no)
              recordingId
              calendarInvitees { matchedSpeakerDisplayName name isExternal }
              recordedBy { emailDomain }
            }
            cursor
          }
        }
      }
      fragment Content on Meeting { transcript { text speaker { displayName } } meetingTitle }
    `;
    const runs = await thrice(query, { id, yes: true, no: false });
    for (const [i, data] of runs.entries()) {
      const run = `run ${i + 1}`;
      expect(Object.keys(data), run).toEqual(['single', 'viewer', 'meetings']);
      expect(Object.keys(data.single), run).toEqual(['defaultSummary', 'title', 'recordedBy', 'url']);
      expect(Object.keys(data.single.recordedBy), run).toEqual(['team', 'name', 'email']);
      expect(Object.keys(data.meetings), run).toEqual(['pageInfo', 'edges']);
      expect(data.meetings.edges).toHaveLength(3);
      for (const edge of data.meetings.edges) {
        expect(Object.keys(edge), run).toEqual(['node', 'cursor']);
        expect(Object.keys(edge.node), run).toEqual([
          'recordedBy',
          'title',
          'highlights',
          'when',
          'transcript',
          'meetingTitle',
          'actionItems',
          'sharedWith',
          'recordingId',
          'calendarInvitees',
        ]);
        expect(Object.keys(edge.node.recordedBy), run).toEqual(['team', 'name', 'emailDomain']);
        for (const invitee of edge.node.calendarInvitees)
          expect(Object.keys(invitee), run).toEqual(['matchedSpeakerDisplayName', 'name', 'isExternal']);
      }
    }
  });

  it('a key repeated after an occurrence @skip/@include leaves out comes where it is included', async () => {
    // graphql-jit places such a key at its first occurrence (compiled-execution.ts): not here.
    const id = await someRecordingId();
    const query = `query Late($id: Int!, $no: Boolean!) {
      meeting(recordingId: $id) { title @include(if: $no) url ...Late } }
      fragment Late on Meeting { title }`;
    for (const [run, data] of (await thrice(query, { id, no: false })).entries())
      expect(Object.keys(data.meeting), `run ${run + 1}`).toEqual(['url', 'title']);
  });

  it('the REST door: answers it hands over in-process keep the order of their documents', async () => {
    // The transcript entries go out as GraphQL made them (aliased to the REST shape), not copied.
    const listed = await r.t.graphql(
      '{ meetings(first: 50) { edges { node { recordingId transcript { text } } } } }',
      {},
      admin,
    );
    const id = listed.body.data.meetings.edges.find((e: any) => e.node.transcript?.length).node.recordingId;
    for (let run = 1; run <= 3; run++) {
      const res = await r.get(`/recordings/${id}/transcript`, { key: admin });
      expect(res.status).toBe(200);
      expect(res.body.transcript.length).toBeGreaterThan(0);
      for (const entry of res.body.transcript) {
        expect(Object.keys(entry), `run ${run}`).toEqual(['speaker', 'text', 'timestamp']);
        expect(Object.keys(entry.speaker), `run ${run}`).toEqual([
          'display_name',
          'matched_calendar_invitee_email',
        ]);
      }
    }
  });

  it('a subscription event too', async () => {
    const controller = new AbortController();
    const res = await fetch(`${r.t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': admin },
      body: JSON.stringify({
        query: 'subscription { meetingContentReady { recordedBy { email name } title recordingId } }',
      }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const recording = recordingJson(emailOf('account admin'));
    await ingest(r.t, recording);
    const deadline = Date.now() + 10_000;
    while (!/^event: next$/m.test(text) || !text.includes('\n\n', text.indexOf('event: next'))) {
      if (Date.now() > deadline) throw new Error(`no event; got ${text}`);
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    const data = /event: next\ndata: (.*)/.exec(text)?.[1];
    const event = JSON.parse(data!).data.meetingContentReady;
    expect(event.recordingId).toBe(recording.recording_id);
    expect(Object.keys(event)).toEqual(['recordedBy', 'title', 'recordingId']);
    expect(Object.keys(event.recordedBy)).toEqual(['email', 'name']);
  });
});
