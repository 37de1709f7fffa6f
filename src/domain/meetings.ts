/**
 * Finding meetings for a viewer: the `/meetings` filters of docs/api/rest.md under the rules of
 * docs/api/access.md (AND across parameters, OR within one, external recorders only when named), always
 * within what the viewer may see.
 */
import type { Filter } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { DomainsType, MeetingDoc } from '../db/documents.js';
import { settledPosition } from './change-log.js';
import { DomainError } from './errors.js';
import {
  emptyPage,
  findPage,
  Keyset,
  type KeysetOrder,
  type Page,
  type PageRequest,
  pageSize,
} from './pagination.js';
import { type Found, findRecordings } from './search.js';
import { parseSearch, type Search } from './search-terms.js';
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
  /** GraphQL only: words and "quoted phrases" that must all occur in the meeting (search-terms.ts). */
  search?: string | null;
  /** Meetings changed after this instant, in the order they changed (an extension on REST). */
  updatedAfter?: Date | null;
}

/** Newest first; a search may instead ask for the best matches first. */
export type MeetingOrder = 'newest' | 'relevance';

/** How far ahead of the server's clock `updated_after` may be (a client's clock running fast). */
const FUTURE_SKEW_MS = 60_000;

export interface MeetingPage extends Page<MeetingDoc> {
  /** The search the page was found by, to show where each meeting matched. */
  search: Search | null;
}

const newest = [
  ['recordingStartTime', -1, 'date'],
  ['recordingId', -1, 'number'],
] as const satisfies KeysetOrder;

/**
 * Found meetings are sent to the database as a list of ids, unless a search is broad: then the
 * meetings the other filters select are read in order, ids only, and the found ones picked out.
 * A long list costs the database more to plan than that walk costs when most meetings are found
 * (5,000 ids: ~30 ms of the engine's time a query), and a command is at most 16 MiB.
 */
export const IDS_SENT_AT_MOST = 1000;

/**
 * Least recently updated first: the change log's order (change-log.ts), in which a meeting changed
 * again moves to the end, so paging stays stable while meetings keep changing.
 */
const updated = [
  ['updatedAt', 1, 'date'],
  ['recordingId', 1, 'number'],
] as const satisfies KeysetOrder;

/** `score` is a meeting's relevance to the search: not a stored field, the cursor carries it. */
const relevance = [['score', -1, 'number'], ...newest] as const satisfies KeysetOrder;

const nonEmpty = (values: string[] | null | undefined): values is string[] => !!values && values.length > 0;

/**
 * The MongoDB filter for the viewer's filter, or null when it can match nothing (an unknown
 * meeting type name, say) and no query need be sent.
 */
async function meetingsFilter(
  collections: Collections,
  viewer: Viewer,
  filter: MeetingFilter,
  found: Found | null,
): Promise<Filter<MeetingDoc> | null> {
  const clauses: Filter<MeetingDoc>[] = [visibleMeetingsFilter(viewer)];
  if (found) {
    if (found.size === 0) return null;
    if (found.size <= IDS_SENT_AT_MOST) clauses.push({ recordingId: { $in: [...found.keys()] } });
  }

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
  if (filter.updatedAfter) {
    // Up to the settled end of the log only: a change logged later cannot take a time before it,
    // so a client asking again after the last updatedAt it saw misses nothing.
    const settled = await settledPosition(collections, new Date());
    clauses.push({ updatedAt: { $gt: filter.updatedAfter, $lte: settled.at } });
  }
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
  order: MeetingOrder = 'newest',
): Promise<MeetingPage> {
  const search = filter.search != null ? parseSearch(filter.search) : null;
  if (order === 'relevance' && !search)
    throw new DomainError(
      'BAD_USER_INPUT',
      'Meetings are ordered by relevance to a search: give filter.search.',
    );
  if (filter.updatedAfter) checkUpdatedAfter(filter.updatedAfter, order);
  const keyset =
    order === 'relevance'
      ? new Keyset('meetings by relevance', relevance, filter)
      : filter.updatedAfter
        ? new Keyset('meetings by update', updated, filter)
        : new Keyset('meetings', newest, filter);
  // A bad cursor is refused before any work, and even when nothing can match.
  const after = keyset.position(request.after);
  const found = search ? await findRecordings(collections, search, order === 'relevance') : null;
  const query = await meetingsFilter(collections, viewer, filter, found);
  if (!query) return { ...emptyPage(request), search };
  if (order === 'relevance')
    return {
      ...(await pageByRelevance(collections, viewer, keyset, query, found!, after, request)),
      search,
    };
  if (found && found.size > IDS_SENT_AT_MOST)
    return { ...(await pageAmong(collections, viewer, keyset, query, found, request)), search };
  return { ...(await findPage(collections.meetings, keyset, query, request)), search };
}

/** `updated_after` lists in the order of updates, from an instant that has passed. */
function checkUpdatedAfter(updatedAfter: Date, order: MeetingOrder): void {
  if (order === 'relevance')
    throw new DomainError(
      'BAD_USER_INPUT',
      'Meetings updated after an instant are listed in the order they were updated: leave out orderBy RELEVANCE.',
    );
  if (updatedAfter.getTime() > Date.now() + FUTURE_SKEW_MS)
    throw new DomainError(
      'BAD_USER_INPUT',
      `updated_after (updatedAfter) is in the future (the server's time is ${new Date().toISOString()}): pass the updated_at of the last meeting you received.`,
    );
}

/** A page of the found meetings among those `query` selects, for a search found too broad to send. */
async function pageAmong(
  collections: Collections,
  viewer: Viewer,
  keyset: Keyset,
  query: Filter<MeetingDoc>,
  found: Found,
  request: PageRequest,
): Promise<Page<MeetingDoc>> {
  const limit = pageSize(request.first);
  const ids: number[] = [];
  const walk = collections.meetings
    .find({ $and: [query, keyset.after(request.after)] } as Filter<MeetingDoc>, {
      projection: { _id: 0, recordingId: 1 },
    })
    .sort(keyset.sort)
    // Most of what a broad search walks is found: a page's worth or a little more is read.
    .batchSize(Math.max(50, 2 * (limit + 1)));
  for await (const { recordingId } of walk) {
    if (found.has(recordingId)) ids.push(recordingId);
    if (ids.length > limit) break;
  }
  await walk.close();
  return pageOf(
    collections,
    viewer,
    keyset,
    ids.map((recordingId) => ({ recordingId })),
    limit,
  );
}

/**
 * A page in order of relevance: the scores are the search's, not stored, so the meetings the
 * viewer may see among those found are ranked here (their ids and start times only) and the page
 * is read by id.
 */
async function pageByRelevance(
  collections: Collections,
  viewer: Viewer,
  keyset: Keyset,
  query: Filter<MeetingDoc>,
  found: Found,
  after: unknown[] | undefined,
  request: PageRequest,
): Promise<Page<MeetingDoc>> {
  const limit = pageSize(request.first);
  const ranked = (
    await collections.meetings
      .find(query, { projection: { _id: 0, recordingId: 1, recordingStartTime: 1 } })
      .toArray()
  )
    .filter((m) => found.has(m.recordingId))
    .map((m) => ({
      score: found.get(m.recordingId)!,
      recordingStartTime: m.recordingStartTime,
      recordingId: m.recordingId,
    }))
    .sort(byRelevance);
  const from = after ? ranked.findIndex((row) => byRelevance(row, rankOf(after)) > 0) : 0;
  return pageOf(collections, viewer, keyset, from < 0 ? [] : ranked.slice(from, from + limit + 1), limit);
}

/**
 * The page of `rows` (the next `limit` + 1 in the list's order, with what their cursors carry
 * beyond a meeting's fields): their meetings read by id, any removed since left out.
 */
async function pageOf(
  collections: Collections,
  viewer: Viewer,
  keyset: Keyset,
  rows: { recordingId: number; score?: number }[],
  limit: number,
): Promise<Page<MeetingDoc>> {
  const shown = rows.slice(0, limit);
  const meetings = await findMeetings(
    collections,
    viewer,
    shown.map((row) => row.recordingId),
  );
  const items = shown.flatMap((row, i) => (meetings[i] ? [{ row, meeting: meetings[i] }] : []));
  return {
    items: items.map(({ meeting }) => meeting),
    cursors: items.map(({ row, meeting }) => keyset.cursorOf({ ...meeting, ...row })),
    hasNextPage: rows.length > limit,
    limit,
  };
}

interface Ranked {
  score: number;
  recordingStartTime: Date;
  recordingId: number;
}

const rankOf = ([score, recordingStartTime, recordingId]: unknown[]) =>
  ({ score, recordingStartTime, recordingId }) as Ranked;

/** Best match first; equal scores newest first, as the list is otherwise. */
function byRelevance(a: Ranked, b: Ranked): number {
  return (
    b.score - a.score ||
    b.recordingStartTime.getTime() - a.recordingStartTime.getTime() ||
    b.recordingId - a.recordingId
  );
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
