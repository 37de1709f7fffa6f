/** The list filter and the single-meeting predicate of visibility.ts decide alike, for every user. */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Viewer } from '../../src/domain/viewer.js';
import { canSee, visibleMeetingsFilter } from '../../src/domain/visibility.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('visibility', () => {
  it('visibleMeetingsFilter selects exactly the meetings canSee allows, for every user', async () => {
    const { collections } = t.app.database;
    const meetings = await collections.meetings.find().toArray();
    const users = await collections.users.find().toArray();
    expect(users.length).toBeGreaterThan(10);
    for (const user of users) {
      const org = (await collections.organisations.findOne({ _id: user.orgId }))!;
      const viewer: Viewer = { user, org, via: 'api_key', credentialId: new ObjectId() };
      const listed = await collections.meetings
        .find(visibleMeetingsFilter(viewer))
        .project({ recordingId: 1 })
        .toArray();
      const predicted = meetings.filter((m) => canSee(viewer, m)).map((m) => m.recordingId);
      expect(listed.map((m) => m.recordingId).sort(), user.email).toEqual(predicted.sort());
    }
  });
});
