/**
 * Finding meetings for a viewer: the `/meetings` filters of external-v1.md under the rules of
 * domain.md (AND across parameters, OR within one, external recorders only when named), always
 * within what the viewer may see.
 */
import type { Filter } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { DomainsType, MeetingDoc } from '../db/documents.js';
import { emptyPage, findPage, Keyset, type Page, type PageRequest } from './pagination.js';
import type { Viewer } from './viewer.js';
import { canSee, visibleMeetingsFilter } from './visibility.js';

export interface MeetingFilter {
  recordedBy?: string[] | null;
  teams?: string[] | null;
  companyDomains?: string[] | null;
  domainsType?: DomainsType | 'all' | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  meetingType?: string | null;
  /** GraphQL only (REST keeps the public API's parameters): invitees' or matched speakers' emails. */
  attendees?: string[] | null;
}

const order = [
  ['recordingStartTime', -1, 'date'],
  ['recordingId', -1, 'number'],
] as const;

const nonEmpty = (values: string[] | null | undefined): values is string[] => !!values && values.length > 0;

/**
 * The MongoDB filter for the viewer's filter, or null when it can match nothing (an unknown
 * meeting type name, say) and no query need be sent.
 */
async function meetingsFilter(
  collections: Collections,
  viewer: Viewer,
  filter: MeetingFilter,
): Promise<Filter<MeetingDoc> | null> {
  const clauses: Filter<MeetingDoc>[] = [visibleMeetingsFilter(viewer)];

  if (nonEmpty(filter.recordedBy)) {
    const emails = filter.recordedBy.map((e) => e.toLowerCase());
    const recorders = await collections.users
      .find({ email: { $in: emails } }, { projection: { _id: 1 } })
      .toArray();
    if (recorders.length === 0) return null;
    clauses.push({ recorderId: { $in: recorders.map((u) => u._id) } });
  } else {
    // Meetings recorded in other organisations come in only when their recorder is named.
    clauses.push({ orgId: viewer.org._id });
  }
  if (nonEmpty(filter.teams)) {
    const teams = await collections.teams
      .find({ orgId: viewer.org._id, name: { $in: filter.teams } }, { projection: { _id: 1 } })
      .toArray();
    if (teams.length === 0) return null;
    clauses.push({ teamId: { $in: teams.map((t) => t._id) } });
  }
  if (nonEmpty(filter.companyDomains)) {
    clauses.push({ companyDomain: { $in: filter.companyDomains.map((d) => d.toLowerCase()) } });
  }
  if (filter.domainsType && filter.domainsType !== 'all') clauses.push({ domainsType: filter.domainsType });
  if (filter.createdAfter) clauses.push({ createdAt: { $gt: filter.createdAfter } });
  if (filter.createdBefore) clauses.push({ createdAt: { $lt: filter.createdBefore } });
  if (filter.meetingType != null) {
    // By name in every organisation: a meeting shared from another organisation has its
    // recorder's organisation's type, and its name is what the caller was shown.
    const types = await collections.meetingTypes
      .find({ name: filter.meetingType }, { projection: { _id: 1 } })
      .toArray();
    if (types.length === 0) return null;
    clauses.push({ meetingTypeId: { $in: types.map((t) => t._id) } });
  }
  if (nonEmpty(filter.attendees)) {
    const emails = filter.attendees.map((e) => e.toLowerCase());
    // A speaker is matched to an invitee, so the invitees hold them all, unless the meeting was
    // stored again with other invitees: its transcript still names them.
    const spoke = await collections.transcripts
      .find({ 'speakers.matchedCalendarInviteeEmail': { $in: emails } }, { projection: { recordingId: 1 } })
      .toArray();
    clauses.push({
      $or: [
        { 'calendarInvitees.email': { $in: emails } },
        ...(spoke.length > 0 ? [{ recordingId: { $in: spoke.map((t) => t.recordingId) } }] : []),
      ],
    });
  }
  return { $and: clauses };
}

export async function listMeetings(
  collections: Collections,
  viewer: Viewer,
  filter: MeetingFilter,
  request: PageRequest,
): Promise<Page<MeetingDoc>> {
  const keyset = new Keyset('meetings', order, filter);
  const query = await meetingsFilter(collections, viewer, filter);
  if (!query) {
    keyset.after(request.after); // a bad cursor is still an error
    return emptyPage(request);
  }
  return findPage(collections.meetings, keyset, query, request);
}

/** A meeting by recording id, or null when it does not exist or the viewer may not see it. */
export async function findMeeting(
  collections: Collections,
  viewer: Viewer,
  recordingId: number,
): Promise<MeetingDoc | null> {
  const meeting = await collections.meetings.findOne({ recordingId });
  return meeting && canSee(viewer, meeting) ? meeting : null;
}

/** Meetings by recording id for node lookups, in the order asked, null for any the viewer may not see. */
export async function findMeetings(
  collections: Collections,
  viewer: Viewer,
  recordingIds: readonly number[],
): Promise<(MeetingDoc | null)[]> {
  const found = await collections.meetings.find({ recordingId: { $in: [...recordingIds] } }).toArray();
  const byId = new Map(found.filter((m) => canSee(viewer, m)).map((m) => [m.recordingId, m]));
  return recordingIds.map((id) => byId.get(id) ?? null);
}
