/**
 * Per-request DataLoaders: whatever a page of meetings needs beyond the meetings themselves
 * (content, recorders, teams, meeting types, CRM matches) costs one query per kind for the page.
 */
import DataLoader from 'dataloader';
import type { Collection, ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import {
  type ContentDocs,
  type ContentKind,
  contentKinds,
  type MeetingDoc,
  type MeetingTypeDoc,
  type TeamDoc,
  type UserDoc,
} from '../db/documents.js';
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

/** One loader per content kind, keyed by recording id (null where a recording has none). */
export type ContentLoaders = { [K in ContentKind]: DataLoader<number, ContentDocs[K] | null> };

/**
 * Content by recording id. It does not depend on who asks (visibility is decided on the meeting),
 * so the delivery worker shares one set between the owners of a burst of events.
 */
export function createContentLoaders(collections: Collections): ContentLoaders {
  return Object.fromEntries(
    contentKinds.map((kind) => [
      kind,
      new DataLoader((ids: readonly number[]) =>
        contentByRecording(collections[kind] as Collection<ContentDocs[typeof kind]>, ids),
      ),
    ]),
  ) as unknown as ContentLoaders;
}

export function createLoaders(
  collections: Collections,
  viewer: Viewer | undefined,
  content: ContentLoaders = createContentLoaders(collections),
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
