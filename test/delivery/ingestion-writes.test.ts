/**
 * What storing recordings writes, on a server with the bulkWrite command across collections
 * (MongoDB 8.0: the content and the ready marks in one ordered command) and on one without it
 * (7.0: a bulk write per kind of content, then the marks). Both leave the same documents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkWriteAcross, type Collections } from '../../src/db/collections.js';
import { contentKinds } from '../../src/db/documents.js';
import { parseRecording } from '../../src/domain/recording-format.js';
import { storeRecordings } from '../../src/domain/recordings.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { emailOf, recordingJson } from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const recorder = emailOf('team admin (Sales)');

/** The same collections, seen as on a server older than 8.0 (not known to have the command). */
const olderServer = (collections: Collections): Collections => ({ ...collections });

describe.each([
  ['8.0, one command across collections', (c: Collections) => c],
  ['7.0, collection by collection', olderServer],
])('storing recordings on %s', (_, on) => {
  it('writes every kind of content and marks ready exactly those with a summary, once', async () => {
    const collections = on(t.app.database.collections);
    const summarised = recordingJson(recorder);
    const { default_summary: _, ...unsummarised } = recordingJson(recorder);
    const batch = [summarised, unsummarised].map(parseRecording);

    const stored = await storeRecordings(collections, batch);
    expect(stored.map((s) => s.becameReady)).toEqual([true, false]);
    for (const { meeting } of stored) {
      const kinds = await Promise.all(
        contentKinds.map((kind) =>
          (collections[kind] as Collections['transcripts']).countDocuments({
            recordingId: meeting.recordingId,
          }),
        ),
      );
      const expected = meeting.recordingId === summarised.recording_id ? [1, 1, 1, 1] : [1, 0, 1, 1];
      expect(kinds).toEqual(expected);
    }
    const meetings = await collections.meetings
      .find({ recordingId: { $in: stored.map((s) => s.meeting.recordingId) } })
      .sort({ recordingId: 1 })
      .toArray();
    expect(
      meetings.map((m) => [m.contentReadyAt instanceof Date, m.eventsPending, 'summaryPending' in m]),
    ).toEqual([
      [true, false, false],
      [false, false, false],
    ]);

    const again = await storeRecordings(collections, batch);
    expect(again.map((s) => s.becameReady)).toEqual([false, false]);
    const readyAt = await collections.meetings.findOne({ recordingId: summarised.recording_id });
    expect(readyAt?.contentReadyAt).toEqual(meetings[0]!.contentReadyAt);
  });

  it('makes a recording stored by two writers at once ready for one of them', async () => {
    const collections = on(t.app.database.collections);
    const recording = parseRecording(recordingJson(recorder));
    const [first, second] = await Promise.all([
      storeRecordings(collections, [recording]),
      storeRecordings(collections, [recording]),
    ]);
    // Both, should they mark it in the same millisecond (markReady); never neither.
    expect(first[0]!.becameReady || second[0]!.becameReady).toBe(true);
    const meeting = await collections.meetings.findOne({ recordingId: recording.recordingId });
    expect([meeting?.eventsPending, meeting && 'summaryPending' in meeting]).toEqual([false, false]);
  });
});

it('on 8.0, the content and the ready mark of a recording are one command', async () => {
  const collections = t.app.database.collections;
  expect(bulkWriteAcross(collections)).toBeDefined();
  const recording = parseRecording(recordingJson(recorder));
  const { commands } = await t.countCommands(() => storeRecordings(collections, [recording]));
  const writes = commands.filter((c) => ['insert', 'update', 'delete', 'bulkWrite'].includes(c.commandName));
  const across = writes.filter((c) => c.commandName === 'bulkWrite');
  expect(across).toHaveLength(1);
  expect(across[0]!.databaseName).toBe('admin');
  // Four kinds of content, the ready mark, the intent dropped where the mark did not drop it.
  expect(across[0]!.command.ops).toHaveLength(contentKinds.length + 2);
  // Nothing else writes the content or marks the meeting ready.
  const namespaces = writes.filter((c) => c.commandName !== 'bulkWrite').map((c) => c.command[c.commandName]);
  expect(namespaces).not.toEqual(expect.arrayContaining([...contentKinds]));
});
