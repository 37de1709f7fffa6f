/**
 * CONTENT_CACHE_MB: content bytes kept in the process by version. A page read again asks the
 * database only which versions are current; content written by anyone else (another process, the
 * seeder, ingestion) shows on the next read, since every write gives the document a new version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { ContentCache } from '../../src/domain/content-cache.js';
import { RawJson } from '../../src/domain/raw-json.js';
import { recordingInputOf } from '../../src/domain/recording-format.js';
import { storeRecording } from '../../src/domain/recordings.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { visibleRecordings } from '../support/oracle.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const visible = visibleRecordings(dataset, 'alice.moreau@acme.test');
const meeting = dataset.meetings.find((m) => visible.has(m.recording_id) && m.transcript?.length)!;
const transcriptOf = `query($id: Int!) { meeting(recordingId: $id) { transcriptJson } }`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const read = async () => {
  const { result, commands } = await t.countCommands(() =>
    t.graphql(transcriptOf, { id: meeting.recording_id }, admin),
  );
  expect(result.body.errors).toBeUndefined();
  const transcripts = commands.filter((c) => c.commandName === 'find' && c.command.find === 'transcripts');
  return {
    transcript: result.body.data.meeting.transcriptJson as { text: string }[],
    projections: transcripts.map((c) =>
      Object.keys(c.command.projection ?? {})
        .sort()
        .join(','),
    ),
  };
};

describe('content cache', () => {
  it('reads a transcript’s bytes once; later reads ask only for its version', async () => {
    const first = await read();
    expect(first.transcript).toEqual(meeting.transcript);
    const again = await read();
    expect(again.transcript).toEqual(meeting.transcript);
    expect(again.projections).toEqual(['_id,recordingId,version']);
  });

  it('content written elsewhere shows on the next read, not a stale copy', async () => {
    await read();
    // The shape /graphql made of it (content-bytes.ts) is kept too, and must not outlive it either.
    const shaped = async () =>
      (
        await t.graphql(
          `query($id: Int!) { meeting(recordingId: $id) { transcript { text } } }`,
          { id: meeting.recording_id },
          admin,
        )
      ).body.data.meeting.transcript[0].text;
    expect(await shaped()).toBe(meeting.transcript![0]!.text);
    const rewritten = meeting.transcript!.map((e, i) => (i === 0 ? { ...e, text: 'Rewritten since.' } : e));
    // Straight to the database, as another process would: nothing tells this one's cache.
    await storeRecording(
      t.app.database.collections,
      recordingInputOf({ ...meeting, transcript: rewritten } as typeof meeting),
    );
    const after = await read();
    expect(after.transcript[0]!.text).toBe('Rewritten since.');
    expect(after.projections).toHaveLength(2); // the version changed: its bytes were read again
    expect(await shaped()).toBe('Rewritten since.');
  });

  it('keeps a few shapes of each content, made once each, and forgets them with it', () => {
    const cache = new ContentCache(10_000);
    const stored = new RawJson<never[]>(Buffer.from('[1]'));
    cache.set('transcripts', 1, 'a', { json: stored });
    let made = 0;
    const shape = (name: string) =>
      cache.shaped(stored, name, () => {
        made++;
        return new RawJson(Buffer.from(`"${name}"`));
      });
    expect(Buffer.from(shape('s1').bytes).toString()).toBe('"s1"');
    shape('s1');
    expect(made).toBe(1);
    for (const name of ['s2', 's3', 's4', 's5']) shape(name);
    expect(made).toBe(5);
    shape('s5'); // held
    shape('s1'); // the oldest of five: let go
    expect(made).toBe(6);
    // A new version replaces the content: its shapes go with the old bytes.
    cache.set('transcripts', 1, 'b', { json: new RawJson<never[]>(Buffer.from('[2]')) });
    shape('s5');
    expect(made).toBe(7);
  });

  it('holds at most its budget of bytes, forgetting the least recently used first', () => {
    const cache = new ContentCache(1000);
    const content = (size: number) => ({ json: new RawJson<never[]>(Buffer.alloc(size, 0x20)) });
    cache.set('transcripts', 1, 'a', content(400));
    cache.set('transcripts', 2, 'a', content(400));
    expect(cache.get('transcripts', 1, 'a')).toBeDefined(); // 1 is now the most recently used
    cache.set('transcripts', 3, 'a', content(400));
    expect(cache.bytes).toBeLessThanOrEqual(1000);
    expect(cache.get('transcripts', 2, 'a')).toBeUndefined();
    expect(cache.get('transcripts', 1, 'a')).toBeDefined();
    expect(cache.get('transcripts', 1, 'b')).toBeUndefined(); // another version is not it
    cache.set('transcripts', 4, 'a', content(2000)); // larger than the budget: not kept
    expect(cache.get('transcripts', 4, 'a')).toBeUndefined();
  });
});
