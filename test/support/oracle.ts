/**
 * An access oracle written from docs/api/access.md alone, over a dataset in the seed format (not the
 * service's code): which recordings may a user see, which of those does a list show under each
 * `/meetings` filter, what CRM matches a viewer gets, and which webhook categories a meeting falls
 * in for a webhook owner.
 *
 * Details the rules once left open, chosen here and now stated in docs/api/access.md too:
 * - `teams[]` names teams of the caller's organisation (the names GET /teams lists), so it matches
 *   only meetings recorded in that organisation;
 * - `meeting_type` matches the name of a meeting's type, whichever organisation the type is in
 *   (a meeting shared from another organisation has that organisation's types);
 * - an invitee without an email has no domain: it is neither internal nor external.
 */
import { stem } from 'porter2';
import type { Dataset } from '../../seeds/index.js';

type User = Dataset['users'][number];
type Meeting = Dataset['meetings'][number];
type Organisation = Dataset['organisations'][number];

function userOf(dataset: Dataset, email: string): User {
  const user = dataset.users.find((u) => u.email === email.toLowerCase());
  if (!user) throw new Error(`oracle: no user ${email}`);
  return user;
}

function organisationOf(dataset: Dataset, slug: string): Organisation {
  return dataset.organisations.find((o) => o.slug === slug)!;
}

function teamsOfOrg(dataset: Dataset, org: string): string[] {
  return dataset.teams.filter((t) => t.organisation === org).map((t) => t.name);
}

function sharedTeams(dataset: Dataset, meeting: Meeting, recorder: User): string[] {
  return meeting.sharing.all_teams ? teamsOfOrg(dataset, recorder.organisation) : meeting.sharing.teams;
}

export function maySee(dataset: Dataset, viewer: User, meeting: Meeting): boolean {
  const recorder = userOf(dataset, meeting.recorded_by);
  if (recorder.email === viewer.email) return true; // 1. recorded it
  if (meeting.sharing.users.includes(viewer.email)) return true; // 2. shared individually
  if (recorder.organisation !== viewer.organisation) return false;
  const teams = sharedTeams(dataset, meeting, recorder);
  if (viewer.team && teams.includes(viewer.team)) return true; // 3. the viewer's team
  const view = viewer.permissions.view_access; // 4. teams the viewer's view access covers
  if (teams.length === 0 || view.level === 'own_meetings') return false;
  return view.level === 'all_teams' || view.teams.some((t) => teams.includes(t));
}

export function visibleRecordings(dataset: Dataset, viewerEmail: string): Set<number> {
  const viewer = userOf(dataset, viewerEmail);
  return new Set(dataset.meetings.filter((m) => maySee(dataset, viewer, m)).map((m) => m.recording_id));
}

// ---------------------------------------------------------------- invitees and the meeting's company

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** Email domains of the invitees outside the meeting's organisation (the recorder's), one per invitee. */
function externalDomains(dataset: Dataset, meeting: Meeting): string[] {
  const internal = organisationOf(dataset, userOf(dataset, meeting.recorded_by).organisation).domains;
  return meeting.calendar_invitees
    .filter((i) => i.email !== null)
    .map((i) => domainOf(i.email!))
    .filter((d) => !internal.includes(d));
}

export function domainsTypeOf(dataset: Dataset, meeting: Meeting): 'only_internal' | 'one_or_more_external' {
  return externalDomains(dataset, meeting).length === 0 ? 'only_internal' : 'one_or_more_external';
}

/** The external invitee domain that occurs most often (ties: alphabetical first); null when none. */
export function companyOf(dataset: Dataset, meeting: Meeting): string | null {
  const counts = new Map<string, number>();
  for (const d of externalDomains(dataset, meeting)) counts.set(d, (counts.get(d) ?? 0) + 1);
  const ranked = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return ranked[0]?.[0] ?? null;
}

// ---------------------------------------------------------------- GET /meetings

/** The filters of GET /meetings (docs/api/rest.md, docs/api/access.md), by their meaning. */
export interface OracleFilter {
  recordedBy?: string[];
  teams?: string[];
  companyDomains?: string[];
  /** `all` (the default) filters nothing. */
  domainsType?: 'all' | 'only_internal' | 'one_or_more_external';
  createdAfter?: string;
  createdBefore?: string;
  meetingType?: string;
  /** GraphQL only: an invitee's email, or a transcript speaker's matched email. */
  attendees?: string[];
  /** GraphQL only: words and "phrases" that must all occur; -word excludes (see searchFinds). */
  search?: string;
}

/**
 * Whether a meeting's words hold the search, by the rule of docs/api/graphql.md (Search): every word (compared by its
 * Porter2 stem) and every "quoted phrase" (as written, case aside) occurs in its title, summary,
 * action items or transcript, and no -word does. The searches tested here use no common words
 * ("the"), which the service ignores.
 */
export function searchFinds(meeting: Meeting, search: string): boolean {
  const texts = [
    meeting.title,
    meeting.meeting_title ?? '',
    meeting.default_summary?.markdown_formatted ?? '',
    ...(meeting.action_items ?? []).map((a) => a.description),
    ...(meeting.transcript ?? []).map((e) => e.text),
  ];
  const stems = new Set(
    texts.flatMap((text) =>
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}']+/u)
        .map((w) => stem(w)),
    ),
  );
  const phrases = [...search.matchAll(/"([^"]+)"/g)].map(([, phrase]) => phrase!.toLowerCase());
  const words = search
    .replace(/"[^"]*"/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return (
    phrases.every((phrase) => texts.some((text) => text.toLowerCase().includes(phrase))) &&
    words.every((word) =>
      word.startsWith('-')
        ? !stems.has(stem(word.slice(1).toLowerCase()))
        : stems.has(stem(word.toLowerCase())),
    )
  );
}

/** Who attended: the calendar invitees' emails and the transcript speakers' matched ones. */
export function attendeesOf(meeting: Meeting): Set<string> {
  return new Set(
    [
      ...meeting.calendar_invitees.map((i) => i.email),
      ...(meeting.transcript ?? []).map((e) => e.speaker.matched_calendar_invitee_email),
    ]
      .filter((e): e is string => e !== null)
      .map((e) => e.toLowerCase()),
  );
}

function matches(dataset: Dataset, viewer: User, meeting: Meeting, filter: OracleFilter): boolean {
  const recorder = userOf(dataset, meeting.recorded_by);
  const sameOrg = recorder.organisation === viewer.organisation;
  if (filter.recordedBy?.length) {
    if (!filter.recordedBy.some((e) => e.toLowerCase() === recorder.email)) return false;
  } else if (!sameOrg) return false; // other organisations' recorders only when named
  if (filter.teams?.length && !(sameOrg && recorder.team !== null && filter.teams.includes(recorder.team)))
    return false;
  if (filter.companyDomains?.length) {
    const company = companyOf(dataset, meeting);
    if (company === null || !filter.companyDomains.some((d) => d.toLowerCase() === company)) return false;
  }
  if (
    filter.domainsType &&
    filter.domainsType !== 'all' &&
    domainsTypeOf(dataset, meeting) !== filter.domainsType
  )
    return false;
  const created = Date.parse(meeting.created_at);
  if (filter.createdAfter !== undefined && !(created > Date.parse(filter.createdAfter))) return false;
  if (filter.createdBefore !== undefined && !(created < Date.parse(filter.createdBefore))) return false;
  if (filter.meetingType !== undefined && meeting.meeting_type !== filter.meetingType) return false;
  if (filter.attendees?.length) {
    const attended = attendeesOf(meeting);
    if (!filter.attendees.some((e) => attended.has(e.toLowerCase()))) return false;
  }
  if (filter.search !== undefined && !searchFinds(meeting, filter.search)) return false;
  return true;
}

/** What GET /meetings (all pages) shows the viewer under `filter`. */
export function listed(dataset: Dataset, viewerEmail: string, filter: OracleFilter = {}): Set<number> {
  const viewer = userOf(dataset, viewerEmail);
  return new Set(
    dataset.meetings
      .filter((m) => maySee(dataset, viewer, m) && matches(dataset, viewer, m, filter))
      .map((m) => m.recording_id),
  );
}

/** What an unfiltered list shows: meetings recorded by someone of another organisation only when named. */
export function listedByDefault(dataset: Dataset, viewerEmail: string): Set<number> {
  return listed(dataset, viewerEmail, {});
}

// ---------------------------------------------------------------- CRM matches

export interface OracleCrmMatches {
  /** record_url of each matched contact, company and deal, sorted. */
  contacts: string[];
  companies: string[];
  deals: string[];
  error: string | null;
}

/** CRM matches of `meeting` as `viewerEmail` sees them: from their own CRM, else their team's. */
export function crmMatchesOf(dataset: Dataset, viewerEmail: string, meeting: Meeting): OracleCrmMatches {
  const viewer = userOf(dataset, viewerEmail);
  const connection =
    dataset.crm_connections.find((c) => 'user' in c.owner && c.owner.user === viewer.email) ??
    dataset.crm_connections.find(
      (c) =>
        'team' in c.owner &&
        viewer.team !== null &&
        c.owner.organisation === viewer.organisation &&
        c.owner.team === viewer.team,
    );
  if (!connection) return { contacts: [], companies: [], deals: [], error: 'no CRM connected' };
  const emails = new Set(meeting.calendar_invitees.flatMap((i) => (i.email ? [i.email.toLowerCase()] : [])));
  const domains = new Set(externalDomains(dataset, meeting));
  const companies = connection.companies.filter((c) => domains.has(c.domain));
  const companyDomains = new Set(companies.map((c) => c.domain));
  return {
    contacts: connection.contacts
      .filter((c) => emails.has(c.email))
      .map((c) => c.record_url)
      .sort(),
    companies: companies.map((c) => c.record_url).sort(),
    deals: connection.deals
      .filter((d) => companyDomains.has(d.company_domain))
      .map((d) => d.record_url)
      .sort(),
    error: null,
  };
}

// ---------------------------------------------------------------- webhooks

export type Category =
  | 'my_recordings'
  | 'my_shared_with_team_recordings'
  | 'shared_external_recordings'
  | 'shared_team_recordings';

/** Content is ready once the meeting is stored with its summary. */
export const contentReady = (meeting: Meeting) => meeting.default_summary !== undefined;

/** The `triggered_for` category of `meeting` for a webhook owned by `ownerEmail`; null when none. */
export function webhookCategory(dataset: Dataset, ownerEmail: string, meeting: Meeting): Category | null {
  const owner = userOf(dataset, ownerEmail);
  if (!maySee(dataset, owner, meeting)) return null;
  const recorder = userOf(dataset, meeting.recorded_by);
  const teamPlan = organisationOf(dataset, owner.organisation).plan === 'team';
  const sharedWithATeam = meeting.sharing.all_teams || meeting.sharing.teams.length > 0;
  if (recorder.email === owner.email)
    return teamPlan && sharedWithATeam ? 'my_shared_with_team_recordings' : 'my_recordings';
  const sharedWithOwner = meeting.sharing.users.includes(owner.email);
  if (!teamPlan) return sharedWithOwner ? 'shared_external_recordings' : null;
  if (recorder.organisation !== owner.organisation)
    return sharedWithOwner ? 'shared_external_recordings' : null;
  return 'shared_team_recordings';
}
