/** User with permissions; the `viewer`, `teamMembers(team)` and `users(filter)` queries. */
import type { SettingsAccessLevel, UserDoc, UserStatus, ViewAccessLevel } from '../../db/documents.js';
import { grantedTeams, listTeamMembers, listUsers } from '../../domain/directory.js';
import { builder } from '../builder.js';
import { connectionOf, listType, pageArgs } from '../connection.js';
import { viewerOf } from '../context.js';
import { Team } from './team.js';

const UserStatusEnum = builder.enumType('UserStatus', {
  values: {
    ACTIVE: { value: 'active' },
    DEACTIVATED: { value: 'deactivated' },
    INVITED: { value: 'invited' },
  } as const satisfies Record<string, { value: UserStatus }>,
});

const SettingsAccessLevelEnum = builder.enumType('SettingsAccessLevel', {
  values: {
    NONE: { value: 'none' },
    TEAM_ADMIN: { value: 'team_admin' },
    ACCOUNT_ADMIN: { value: 'account_admin' },
  } as const satisfies Record<string, { value: SettingsAccessLevel }>,
});

const ViewAccessLevelEnum = builder.enumType('ViewAccessLevel', {
  values: {
    OWN_MEETINGS: { value: 'own_meetings' },
    TEAM: { value: 'team' },
    MULTIPLE_TEAMS: { value: 'multiple_teams' },
    ALL_TEAMS: { value: 'all_teams' },
  } as const satisfies Record<string, { value: ViewAccessLevel }>,
});

const SettingsAccess = builder.objectRef<UserDoc>('SettingsAccess').implement({
  fields: (t) => ({
    level: t.field({ type: SettingsAccessLevelEnum, resolve: (u) => u.settingsAccess.level }),
    teams: t.field({
      type: [Team],
      description: 'Every team for account admins; the administered teams for team admins.',
      resolve: async (u, _a, { loaders }) =>
        grantedTeams(u.settingsAccess, await loaders.orgTeams.load(u.orgId)),
    }),
  }),
});

const ViewAccess = builder.objectRef<UserDoc>('ViewAccess').implement({
  fields: (t) => ({
    level: t.field({ type: ViewAccessLevelEnum, resolve: (u) => u.viewAccess.level }),
    teams: t.field({
      type: [Team],
      description:
        'Teams whose shared meetings the user sees: every team for ALL_TEAMS, none for OWN_MEETINGS.',
      resolve: async (u, _a, { loaders }) => grantedTeams(u.viewAccess, await loaders.orgTeams.load(u.orgId)),
    }),
  }),
});

const Permissions = builder.objectRef<UserDoc>('Permissions').implement({
  fields: (t) => ({
    settingsAccess: t.field({ type: SettingsAccess, resolve: (u) => u }),
    viewAccess: t.field({ type: ViewAccess, resolve: (u) => u }),
  }),
});

export const User = builder.objectRef<UserDoc>('User').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    email: t.exposeString('email'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    status: t.field({ type: UserStatusEnum, resolve: (u) => u.status }),
    team: t.field({
      type: Team,
      nullable: true,
      resolve: (u, _a, { loaders }) => (u.teamId ? loaders.teams.load(u.teamId) : null),
    }),
    permissions: t.field({
      type: Permissions,
      nullable: true,
      description: 'Null for invited users, who have none yet.',
      resolve: (u) => (u.status === 'invited' ? null : u),
    }),
  }),
});

const UserFilter = builder.inputType('UserFilter', {
  fields: (t) => ({
    team: t.string({ required: false, description: 'A team name.' }),
    status: t.field({ type: UserStatusEnum, required: false }),
    settingsAccess: t.field({
      type: SettingsAccessLevelEnum,
      required: false,
      description: 'Not with status INVITED.',
    }),
  }),
});

const TeamMemberList = listType('QueryTeamMembersConnection', User);
const UserList = listType('QueryUsersConnection', User);

builder.queryFields((t) => ({
  viewer: t.field({
    type: User,
    description: 'The user the API key or token belongs to.',
    resolve: (_r, _a, c) => viewerOf(c).user,
  }),
  teamMembers: t.field({
    type: TeamMemberList,
    description: 'Active members of your organisation’s teams (or of one team), by email.',
    args: { ...pageArgs(), team: t.arg.string({ required: false, description: 'A team name.' }) },
    resolve: async (_root, args, context) =>
      connectionOf(await listTeamMembers(context.collections, viewerOf(context), args.team, args)),
  }),
  users: t.field({
    type: UserList,
    authScopes: { accountAdmin: true },
    description:
      'Every user of the account with permissions: active, then deactivated, then invited. Account admins only.',
    args: { ...pageArgs(), filter: t.arg({ type: UserFilter, required: false }) },
    resolve: async (_root, args, context) =>
      connectionOf(await listUsers(context.collections, viewerOf(context), args.filter ?? {}, args)),
  }),
}));
