/**
 * Per-request DataLoaders: whatever a page of meetings needs beyond the meetings themselves
 * (content, recorders, teams, meeting types, CRM matches) costs one query per kind for the page.
 */
import DataLoader from 'dataloader';
import type { Collection, ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { MeetingDoc, MeetingTypeDoc, TeamDoc, UserDoc } from '../db/documents.js';
import { contentByRecording } from '../domain/content.js';
import { type CrmMatches, crmConnectionOf, crmMatchesFor } from '../domain/crm.js';
import { findMeetings } from '../domain/meetings.js';
import type { Viewer } from '../domain/viewer.js';

function byObjectId<T extends { _id: ObjectId }>(find: (ids: ObjectId[]) => Promise<T[]>) {
  return new DataLoader<ObjectId, T | null, string>(
    async (ids) => {
      const docs = await find([...ids]);
      const byId = new Map(docs.map((d) => [d._id.toHexString(), d]));
      return ids.map((id) => byId.get(id.toHexString()) ?? null);
    },
    { cacheKeyFn: (id) => id.toHexString() },
  );
}

/**
 * Content by recording id. It does not depend on who asks (visibility is decided on the meeting),
 * so the delivery worker shares one set between the owners of a burst of events.
 */
export function createContentLoaders(collections: Collections) {
  const content = <T extends { recordingId: number }>(collection: Collection<T>) =>
    new DataLoader((ids: readonly number[]) => contentByRecording(collection, ids));
  return {
    transcripts: content(collections.transcripts),
    summaries: content(collections.summaries),
    actionItems: content(collections.actionItems),
    highlights: content(collections.highlights),
  };
}

export function createLoaders(
  collections: Collections,
  viewer: Viewer | undefined,
  content: ReturnType<typeof createContentLoaders> = createContentLoaders(collections),
) {
  return {
    ...content,
    /** Meetings by recording id, null for any the viewer may not see (node lookups). */
    meetings: new DataLoader((ids: readonly number[]) =>
      viewer ? findMeetings(collections, viewer, ids) : Promise.resolve(ids.map(() => null)),
    ),
    users: byObjectId<UserDoc>((ids) => collections.users.find({ _id: { $in: ids } }).toArray()),
    teams: byObjectId<TeamDoc>((ids) => collections.teams.find({ _id: { $in: ids } }).toArray()),
    meetingTypes: byObjectId<MeetingTypeDoc>((ids) =>
      collections.meetingTypes.find({ _id: { $in: ids } }).toArray(),
    ),
    /** Every team of an organisation (for permission listings and a meeting's `sharedWith`). */
    orgTeams: new DataLoader(
      async (orgIds: readonly ObjectId[]) => {
        const teams = await collections.teams
          .find({ orgId: { $in: [...orgIds] } })
          .sort({ name: 1 })
          .toArray();
        return orgIds.map((id) => teams.filter((t) => t.orgId.equals(id)));
      },
      { cacheKeyFn: (id) => id.toHexString() },
    ),
    /** CRM matches as the viewer sees them. */
    crmMatches: new DataLoader<MeetingDoc, CrmMatches, number>(
      async (meetings) => {
        const connection = viewer ? await crmConnectionOf(collections, viewer.user) : null;
        return crmMatchesFor(collections, connection, meetings);
      },
      { cacheKeyFn: (m) => m.recordingId },
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
