/**
 * Media through GraphQL: the ingestion service uploads a recording's file with ingestRecording (a
 * GraphQL multipart request), Meeting.media shows it, requestDownload and download(id) give its
 * signed link; nobody else may upload, and uploads have their own limit.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_TOKEN, startDeliveryTest } from '../delivery/support.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';
import { testRecording } from '../support/recording.js';

const recorder = 'alice.moreau@acme.test';
const admin = keyOf('account admin');
let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  [t, rx] = await startDeliveryTest({ GRAPHQL_MAX_UPLOAD_MB: '2' });
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

const ingestWithMedia = `mutation($r: String!, $media: File) {
  ingestRecording(recording: $r, media: $media) { recordingId media { kind contentType sizeBytes } }
}`;

/** A GraphQL multipart request (operations, map, then the file), as Apollo Upload or urql send it. */
async function upload(
  recording: object,
  file: { bytes: Buffer; type: string },
  authorization = `Bearer ${SERVICE_TOKEN}`,
) {
  const form = new FormData();
  form.set(
    'operations',
    JSON.stringify({ query: ingestWithMedia, variables: { r: JSON.stringify(recording), media: null } }),
  );
  form.set('map', JSON.stringify({ 0: ['variables.media'] }));
  form.set('0', new Blob([new Uint8Array(file.bytes)], { type: file.type }), 'recording.mp4');
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { authorization, accept: 'application/graphql-response+json' },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('ingestRecording with media', () => {
  const video = randomBytes(700_000);
  const recording = testRecording(910_001, recorder, Date.parse('2026-10-01T09:00:00Z'));

  it('stores the file; the same file again changes nothing', async () => {
    const first = await upload(recording, { bytes: video, type: 'video/mp4' });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.ingestRecording).toEqual({
      recordingId: 910_001,
      media: { kind: 'VIDEO', contentType: 'video/mp4', sizeBytes: video.length },
    });
    const meeting = await t.app.database.collections.meetings.findOne({ recordingId: 910_001 });
    const again = await upload(recording, { bytes: video, type: 'video/mp4' });
    expect(again.body.data.ingestRecording.media.sizeBytes).toBe(video.length);
    const after = await t.app.database.collections.meetings.findOne({ recordingId: 910_001 });
    expect(after!.media).toEqual(meeting!.media);
  });

  it('Meeting.media, requestDownload and download(id) give the same bytes through the link', async () => {
    const seen = await t.graphql('{ meeting(recordingId: 910001) { media { kind sizeBytes } } }', {}, admin);
    expect(seen.body.data.meeting.media).toEqual({ kind: 'VIDEO', sizeBytes: video.length });
    const made = await t.graphql(
      'mutation { requestDownload(recordingId: 910001) { id status video { url contentType fileSizeBytes } audio { url } } }',
      {},
      admin,
    );
    const download = made.body.data.requestDownload;
    expect(download).toMatchObject({
      status: 'COMPLETED',
      video: { contentType: 'video/mp4', fileSizeBytes: video.length },
      audio: null,
    });
    const bytes = Buffer.from(await (await fetch(download.video.url)).arrayBuffer());
    expect(bytes.equals(video)).toBe(true);
    const read = await t.graphql(
      'query($id: String!) { download(id: $id) { id status } }',
      { id: download.id },
      admin,
    );
    expect(read.body.data.download).toEqual({ id: download.id, status: 'COMPLETED' });
    const other = await t.graphql(
      'query($id: String!) { download(id: $id) { id } }',
      { id: download.id },
      keyOf('team admin (Sales)'),
    );
    expect(other.body.data.download).toBeNull();
  });

  it('a recording without media: UNPROCESSABLE (422); one not seen: NOT_FOUND', async () => {
    await t.graphql(
      'mutation($r: String!) { ingestRecording(recording: $r) { recordingId } }',
      { r: JSON.stringify(testRecording(910_002, recorder, Date.parse('2026-10-02T09:00:00Z'))) },
      `Bearer ${SERVICE_TOKEN}`,
    );
    const none = await t.graphql('mutation { requestDownload(recordingId: 910002) { id } }', {}, admin);
    expect(none.status).toBe(422);
    expect(none.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNPROCESSABLE', http: { status: 422 } });
    const unseen = await t.graphql(
      'mutation { requestDownload(recordingId: 910001) { id } }',
      {},
      keyOf('external user (Globex)'),
    );
    expect(unseen.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a file that is not video or audio, before storing the recording', async () => {
    const res = await upload(testRecording(910_003, recorder, Date.parse('2026-10-03T09:00:00Z')), {
      bytes: randomBytes(100),
      type: 'application/pdf',
    });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors?.[0]?.message).toMatch(/video or audio/);
    expect(await t.app.database.collections.meetings.findOne({ recordingId: 910_003 })).toBeNull();
  });

  it('an upload over GRAPHQL_MAX_UPLOAD_MB is 413; anyone but the ingestion service gets the body limit', async () => {
    const big = await upload(recording, { bytes: randomBytes(2 * 1024 * 1024 + 1), type: 'video/mp4' });
    expect(big.status).toBe(413);
    expect(big.body.errors[0].message).toMatch(/npm run ingest -- --media/);
    // 1.5 MB fits the upload limit but not the 1 MiB body limit of everyone else.
    const user = await upload(
      recording,
      { bytes: randomBytes(1_500_000), type: 'video/mp4' },
      `Bearer ${admin}`,
    );
    expect(user.status).toBe(413);
    expect(user.body.errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
    const small = await upload(recording, { bytes: randomBytes(1000), type: 'video/mp4' }, `Bearer ${admin}`);
    expect(small.status).toBe(401); // an API key is not a bearer token
  });
});
