/**
 * Recording downloads end to end: media stored in GridFS, POST /recordings/{id}/download (with and
 * without destination_url), its status, and the signed link that streams the same bytes, in
 * ranges, to whoever holds it until it expires.
 */
import { randomBytes } from 'node:crypto';
import { MongoNetworkError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset, demoMedia } from '../../seeds/index.js';
import { storeMedia } from '../../src/domain/media.js';
import { keyOf } from '../support/app.js';
import { visibleRecordings } from '../support/oracle.js';
import { type RestTestApp, startRestTestApp } from './support.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const visible = visibleRecordings(dataset, 'alice.moreau@acme.test');
// Recordings without the demo's own media (seeds/demo-media.ts).
const demoFiles = new Set(demoMedia(dataset).map((m) => m.recordingId));
const [videoMeeting, audioMeeting, bareMeeting] = dataset.meetings.filter(
  (m) => visible.has(m.recording_id) && !demoFiles.has(m.recording_id),
);
const hidden = dataset.meetings.find((m) => !visible.has(m.recording_id))!;
// Several GridFS chunks (255 KiB each) and a last one cut short.
const video = randomBytes(3 * 1024 * 1024 + 12_345);
const audio = randomBytes(40_000);

let r: RestTestApp;

async function store(recordingId: number, bytes: Buffer, contentType: string) {
  return storeMedia(r.t.app.database.collections, r.t.app.database.media, recordingId, {
    contentType,
    open: async function* () {
      // In pieces, as a file is read.
      for (let i = 0; i < bytes.length; i += 100_000) yield bytes.subarray(i, i + 100_000);
    },
  });
}

const requestDownload = (recordingId: number, body?: unknown, key = admin) =>
  r.request('POST', `/recordings/${recordingId}/download`, { key, body });

beforeAll(async () => {
  r = await startRestTestApp();
  await store(videoMeeting!.recording_id, video, 'video/mp4');
  await store(audioMeeting!.recording_id, audio, 'audio/mpeg');
});
afterAll(() => r.close());

describe('POST /recordings/{id}/download', () => {
  it('202 completed with a signed link to the video; following it gives the same bytes', async () => {
    const res = await requestDownload(videoMeeting!.recording_id, {});
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({
      download_id: expect.stringMatching(/^dl_[0-9A-Za-z]{24}$/),
      recording_id: videoMeeting!.recording_id,
      status: 'completed',
      video: { content_type: 'video/mp4', file_size_bytes: video.length },
    });
    expect(res.body.audio).toBeUndefined();
    const expiresIn = Date.parse(res.body.video.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);

    const file = await fetch(res.body.video.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(file.headers.get('content-length')).toBe(String(video.length));
    expect(file.headers.get('accept-ranges')).toBe('bytes');
    expect(file.headers.get('etag')).toMatch(/^"[0-9a-f]{24}"$/);
    expect(Buffer.from(await file.arrayBuffer()).equals(video)).toBe(true);
  });

  it('an audio-only recording gives audio; no body at all is the same as {}', async () => {
    const res = await r.request('POST', `/recordings/${audioMeeting!.recording_id}/download`, { key: admin });
    expect(res.status, res.text).toBe(202);
    expect(res.body.video).toBeUndefined();
    expect(res.body.audio).toMatchObject({ content_type: 'audio/mpeg', file_size_bytes: audio.length });
    const file = await fetch(res.body.audio.url);
    expect(Buffer.from(await file.arrayBuffer()).equals(audio)).toBe(true);
  });

  it('with destination_url: the completed download is POSTed there, and its link works', async () => {
    const destination = `${r.receiverUrl}/downloads`;
    const res = await requestDownload(videoMeeting!.recording_id, { destination_url: destination });
    expect(res.status, res.text).toBe(202);
    const { outbox } = r.t.app.database.collections;
    let sent = await outbox.findOne({ downloadId: res.body.download_id });
    for (let i = 0; i < 100 && sent?.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      sent = await outbox.findOne({ downloadId: res.body.download_id });
    }
    expect(sent).toMatchObject({
      status: 'delivered',
      destinationUrl: destination,
      kind: 'download_delivery',
    });
    const body = JSON.parse(sent!.body!);
    expect(body).toEqual(res.body);
    const file = await fetch(body.video.url);
    expect(Buffer.from(await file.arrayBuffer()).equals(video)).toBe(true);
  });

  it('422 for a recording without media; 404 for one the caller may not see, as for an unknown one', async () => {
    const none = await requestDownload(bareMeeting!.recording_id, {});
    expect(none.status).toBe(422);
    expect(none.body).toEqual({ error: `Recording ${bareMeeting!.recording_id} has no downloadable media.` });
    const unseen = await requestDownload(hidden.recording_id, {});
    const unknown = await requestDownload(999_999_999, {});
    expect(unseen.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(unseen.body.error).toBe(`No recording with id ${hidden.recording_id}.`);
  });

  it('400 for a body with another property, a bad destination_url or a body that is not JSON', async () => {
    const id = videoMeeting!.recording_id;
    expect((await requestDownload(id, { url: 'https://example.com' })).status).toBe(400);
    expect((await requestDownload(id, { destination_url: 'ftp://example.com/x' })).status).toBe(400);
    const raw = await r.request('POST', `/recordings/${id}/download`, {
      key: admin,
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(400);
  });
});

describe('the demo data', () => {
  it("has media on the account admin's three newest own recordings: a WAV any player reads", async () => {
    const files = demoMedia(dataset);
    expect(files).toHaveLength(3);
    for (const { recordingId } of files) {
      const res = await requestDownload(recordingId, {});
      expect(res.status, res.text).toBe(202);
      expect(res.body.audio).toMatchObject({ content_type: 'audio/wav' });
      const wav = Buffer.from(await (await fetch(res.body.audio.url)).arrayBuffer());
      expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
      expect(wav.toString('latin1', 8, 16)).toBe('WAVEfmt ');
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44); // the data chunk is the rest of the file
    }
  });
});

describe('GET /recordings/{id}/downloads/{download_id}', () => {
  it('gives the download to the key that made it, and 404 to any other key or recording', async () => {
    const made = await requestDownload(videoMeeting!.recording_id, {});
    const path = `/recordings/${videoMeeting!.recording_id}/downloads/${made.body.download_id}`;
    const again = await r.get(path, { key: admin });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(made.body);

    // The same user through another credential, and another user who may see the recording.
    const tom = keyOf('connected app (Tom)');
    const teamAdmin = keyOf('team admin (Sales)');
    for (const key of [`Bearer ${tom}`, teamAdmin]) expect((await r.get(path, { key })).status).toBe(404);
    const elsewhere = `/recordings/${audioMeeting!.recording_id}/downloads/${made.body.download_id}`;
    expect((await r.get(elsewhere, { key: admin })).status).toBe(404);
    const unknown = await r.get(`/recordings/${videoMeeting!.recording_id}/downloads/dl_nothing`, {
      key: admin,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe(
      `No download with id dl_nothing of recording ${videoMeeting!.recording_id}.`,
    );
  });
});

describe('the signed link', () => {
  let url: string;
  beforeAll(async () => {
    url = (await requestDownload(videoMeeting!.recording_id, {})).body.video.url;
  });

  it('a Range gets exactly that slice (206), across chunk boundaries, from the end, or open-ended', async () => {
    const cases: [string, number, number][] = [
      ['bytes=1000-299999', 1000, 299_999],
      ['bytes=261120-261120', 261_120, 261_120],
      [`bytes=-5000`, video.length - 5000, video.length - 1],
      [`bytes=3000000-`, 3_000_000, video.length - 1],
      [`bytes=3000000-999999999`, 3_000_000, video.length - 1],
    ];
    for (const [range, first, last] of cases) {
      const res = await fetch(url, { headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${first}-${last}/${video.length}`);
      expect(res.headers.get('content-length')).toBe(String(last - first + 1));
      expect(Buffer.from(await res.arrayBuffer()).equals(video.subarray(first, last + 1)), range).toBe(true);
    }
  });

  it('several clients seeking at once each get their slice', async () => {
    const starts = [0, 500_000, 1_000_000, 2_000_000, 3_100_000];
    const slices = await Promise.all(
      starts.map(async (start) => {
        const res = await fetch(url, { headers: { range: `bytes=${start}-${start + 99_999}` } });
        return Buffer.from(await res.arrayBuffer());
      }),
    );
    slices.forEach((slice, i) => {
      expect(slice.equals(video.subarray(starts[i], starts[i]! + 100_000))).toBe(true);
    });
  });

  it('416 past the end; HEAD has the headers only; If-None-Match gives 304; a stale If-Range the whole file', async () => {
    const past = await fetch(url, { headers: { range: `bytes=${video.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${video.length}`);

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(video.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const etag = head.headers.get('etag')!;
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const stale = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': '"another"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('content-length')).toBe(String(video.length));
    await stale.arrayBuffer();
  });

  it('a tampered link is 403, an expired one 410, without reading the file', async () => {
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 3600));
    const forged = await fetch(tampered);
    expect(forged.status).toBe(403);
    expect((await forged.json()).error).toMatch(/not valid/);
    const noSignature = new URL(url);
    noSignature.searchParams.delete('signature');
    expect((await fetch(noSignature)).status).toBe(403);

    const { mediaLinks } = r.t.app.services;
    const fileId = new URL(url).pathname.split('/').pop()!;
    const { ObjectId } = await import('mongodb');
    const expired = mediaLinks.linkTo(ObjectId.createFromHexString(fileId), new Date(Date.now() - 1000));
    const gone = await fetch(expired);
    expect(gone.status).toBe(410);
    expect((await gone.json()).error).toMatch(/expired/);
  });
});

describe('the signed link, while the database is down', () => {
  it('answers 503 with Retry-After, as every door does', async () => {
    const { url } = (await requestDownload(videoMeeting!.recording_id, {})).body.video;
    const { media } = r.t.app.database;
    media.file = () => Promise.reject(new MongoNetworkError('connection refused'));
    try {
      const res = await fetch(url);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect((await res.json()).error).toMatch(/unavailable/);
    } finally {
      delete (media as Partial<typeof media>).file; // the prototype's again
    }
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('storing media again', () => {
  it('the same bytes change nothing; other bytes replace the file, and old links stop working', async () => {
    const id = audioMeeting!.recording_id;
    const before = await requestDownload(id, {});
    const same = await store(id, audio, 'audio/mpeg');
    expect(same.changed).toBe(false);
    expect((await fetch(before.body.audio.url)).status).toBe(200);

    const other = randomBytes(10_000);
    const replaced = await store(id, other, 'audio/mpeg');
    expect(replaced.changed).toBe(true);
    expect((await fetch(before.body.audio.url)).status).toBe(404);
    const status = await r.get(`/recordings/${id}/downloads/${before.body.download_id}`, { key: admin });
    expect(status.body).toEqual({
      download_id: before.body.download_id,
      recording_id: id,
      status: 'expired',
    });
    const fresh = await requestDownload(id, {});
    expect(Buffer.from(await (await fetch(fresh.body.audio.url)).arrayBuffer()).equals(other)).toBe(true);
  });
});

describe('rate limits', () => {
  it('download requests have a bucket of their own; status reads count in the general one', async () => {
    const limited = await startRestTestApp({ RATE_LIMIT_DOWNLOAD: '2' });
    try {
      await storeMedia(
        limited.t.app.database.collections,
        limited.t.app.database.media,
        videoMeeting!.recording_id,
        {
          contentType: 'video/mp4',
          open: async function* () {
            yield audio;
          },
        },
      );
      const post = () =>
        limited.request('POST', `/recordings/${videoMeeting!.recording_id}/download`, {
          key: admin,
          body: {},
        });
      const first = await post();
      expect(first.status).toBe(202);
      expect(first.headers.get('ratelimit-limit')).toBe('2');
      expect((await post()).status).toBe(202);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatch(/download requests/);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      const status = await limited.get(
        `/recordings/${videoMeeting!.recording_id}/downloads/${first.body.download_id}`,
        { key: admin },
      );
      expect(status.status).toBe(200);
      expect(status.headers.get('ratelimit-limit')).toBe('1000000');
    } finally {
      await limited.close();
    }
  });
});
