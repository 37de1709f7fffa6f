/**
 * The organisation's directory as the viewer sees it: teams, team members, meeting types and
 * (for account admins) users with their permissions. All lists are keyset-paginated.
 */
import type { Filter, ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type {
  AccessGrant,
  MeetingTypeDoc,
  SettingsAccessLevel,
  TeamDoc,
  UserDoc,
  UserStatus,
  ViewAccessLevel,
} from '../db/documents.js';
import { DomainError } from './errors.js';
import { emptyPage, findPage, Keyset, type Page, type PageRequest } from './pagination.js';
import type { Viewer } from './viewer.js';

export function listTeams(
  collections: Collections,
  viewer: Viewer,
  request: PageRequest,
): Promise<Page<TeamDoc>> {
  const keyset = new Keyset('teams', [['name', 1, 'string']], {});
  return findPage(collections.teams, keyset, { orgId: viewer.org._id }, request);
}

export function listMeetingTypes(
  collections: Collections,
  viewer: Viewer,
  request: PageRequest,
): Promise<Page<MeetingTypeDoc>> {
  const keyset = new Keyset('meetingTypes', [['name', 1, 'string']], {});
  return findPage(collections.meetingTypes, keyset, { orgId: viewer.org._id }, request);
}

async function teamIdByName(
  collections: Collections,
  viewer: Viewer,
  name: string,
): Promise<ObjectId | null> {
  const team = await collections.teams.findOne({ orgId: viewer.org._id, name }, { projection: { _id: 1 } });
  return team?._id ?? null;
}

/** Active users of the viewer's organisation who belong to a team (or to the named team). */
export async function listTeamMembers(
  collections: Collections,
  viewer: Viewer,
  team: string | null | undefined,
  request: PageRequest,
): Promise<Page<UserDoc>> {
  const keyset = new Keyset('teamMembers', [['email', 1, 'string']], { team: team ?? null });
  const filter: Filter<UserDoc> = { orgId: viewer.org._id, status: 'active', teamId: { $ne: null } };
  if (team != null) {
    const teamId = await teamIdByName(collections, viewer, team);
    if (!teamId) {
      keyset.after(request.after);
      return emptyPage(request);
    }
    filter.teamId = teamId;
  }
  return findPage(collections.users, keyset, filter, request);
}

export interface UserFilter {
  team?: string | null;
  status?: UserStatus | null;
  settingsAccess?: SettingsAccessLevel | null;
}

export function requireAccountAdmin(viewer: Viewer): void {
  if (viewer.user.settingsAccess.level !== 'account_admin') {
    throw new DomainError('FORBIDDEN', 'Only account admins may list users and their permissions.');
  }
}

/** Every user of the account: active, then deactivated, then invited (alphabetical order of the statuses). */
export async function listUsers(
  collections: Collections,
  viewer: Viewer,
  filter: UserFilter,
  request: PageRequest,
): Promise<Page<UserDoc>> {
  requireAccountAdmin(viewer);
  if (filter.status === 'invited' && filter.settingsAccess) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'Invited users have no permissions yet: do not combine status=invited with settings_access.',
    );
  }
  const keyset = new Keyset(
    'users',
    [
      ['status', 1, 'string'],
      ['email', 1, 'string'],
    ],
    filter,
  );
  const query: Filter<UserDoc> = { orgId: viewer.org._id };
  if (filter.status) query.status = filter.status;
  if (filter.settingsAccess) query['settingsAccess.level'] = filter.settingsAccess;
  if (filter.team != null) {
    const teamId = await teamIdByName(collections, viewer, filter.team);
    if (!teamId) {
      keyset.after(request.after);
      return emptyPage(request);
    }
    query.teamId = teamId;
  }
  return findPage(collections.users, keyset, query, request);
}

const everyTeam: ReadonlySet<string> = new Set(['account_admin', 'all_teams']);
const noTeam: ReadonlySet<string> = new Set(['none', 'own_meetings']);

/** The teams a permission names: every team for account_admin/all_teams, none for none/own_meetings. */
export function grantedTeams(
  grant: AccessGrant<SettingsAccessLevel | ViewAccessLevel>,
  orgTeams: readonly TeamDoc[],
): TeamDoc[] {
  if (everyTeam.has(grant.level)) return [...orgTeams];
  if (noTeam.has(grant.level)) return [];
  return orgTeams.filter((t) => grant.teamIds.some((id) => id.equals(t._id)));
}
