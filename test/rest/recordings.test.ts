/** GET /recordings/{recording_id}/transcript and /summary: synchronous, delivered, 404 and 400. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { keyOf } from '../support/app.js';
import { visibleRecordings } from '../support/oracle.js';
import { type RestTestApp, startRestTestApp } from './support.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const adminEmail = 'alice.moreau@acme.test';
const visible = visibleRecordings(dataset, adminEmail);
const seen = dataset.meetings.find((m) => visible.has(m.recording_id) && m.transcript && m.default_summary)!;
const hidden = dataset.meetings.find((m) => !visible.has(m.recording_id))!;

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

describe('synchronous', () => {
  it('transcript: {transcript: [...]} as stored', async () => {
    const res = await r.get(`/recordings/${seen.recording_id}/transcript`, { key: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transcript: seen.transcript });
  });

  it('summary: {summary: {template_name, markdown_formatted}}', async () => {
    const res = await r.get(`/recordings/${seen.recording_id}/summary`, { key: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ summary: seen.default_summary });
  });

  it('a connected app may read them one recording at a time', async () => {
    const app = `Bearer ${keyOf('connected app (Tom)')}`;
    const tomSees = visibleRecordings(dataset, 'tom.baker@acme.test');
    const id = dataset.meetings.find((m) => tomSees.has(m.recording_id) && m.default_summary)!.recording_id;
    expect((await r.get(`/recordings/${id}/summary`, { key: app })).status).toBe(200);
    expect((await r.get(`/recordings/${id}/transcript`, { key: app })).status).toBe(200);
  });
});

describe('delivered to destination_url', () => {
  it.each([
    'transcript',
    'summary',
  ])('%s: 200 {destination_url} at once, and a delivery queued', async (what) => {
    const url = `${r.receiverUrl}/${what}?x=1`;
    const before = await r.t.app.database.collections.outbox.countDocuments({
      recordingId: seen.recording_id,
    });
    const res = await r.get(`/recordings/${seen.recording_id}/${what}`, {
      key: admin,
      query: { destination_url: url },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ destination_url: url });
    const after = await r.t.app.database.collections.outbox.countDocuments({
      recordingId: seen.recording_id,
    });
    expect(after).toBe(before + 1);
  });

  it('a destination_url that is not an absolute http(s) URL: 400 naming it', async () => {
    for (const url of ['not a url', 'ftp://files.example/x', '']) {
      const res = await r.get(`/recordings/${seen.recording_id}/summary`, {
        key: admin,
        query: { destination_url: url },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('destination_url');
    }
  });
});

describe('errors', () => {
  it.each([
    'transcript',
    'summary',
  ])('%s: unknown and invisible recordings are the same 404, with or without destination_url', async (what) => {
    for (const query of [{}, { destination_url: `${r.receiverUrl}/x` }]) {
      const unknown = await r.get(`/recordings/999999/${what}`, { key: admin, query });
      const invisible = await r.get(`/recordings/${hidden.recording_id}/${what}`, { key: admin, query });
      expect(unknown.status).toBe(404);
      expect(invisible.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'No recording with id 999999.' });
      expect(invisible.body).toEqual({ error: `No recording with id ${hidden.recording_id}.` });
    }
  });

  it.each([
    'abc',
    '1.5',
    '1e3',
    '0x10',
    '%20',
    '99999999999',
  ])('recording_id %s is not an integer: 400 naming it', async (id) => {
    const res = await r.get(`/recordings/${id}/transcript`, { key: admin });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"recording_id"');
  });

  it('destination_url twice: 400', async () => {
    const res = await r.get(`/recordings/${seen.recording_id}/summary`, {
      key: admin,
      query: `destination_url=${r.receiverUrl}/a&destination_url=${r.receiverUrl}/b`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"destination_url"');
  });
});
