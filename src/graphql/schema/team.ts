/** Team, and the `teams` query. */
import type { TeamDoc } from '../../db/documents.js';
import { listTeams } from '../../domain/directory.js';
import { builder } from '../builder.js';
import { connectionOf, listType, pageArgs } from '../connection.js';
import { viewerOf } from '../context.js';

export const Team = builder.objectRef<TeamDoc>('Team').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const TeamList = listType('QueryTeamsConnection', Team);

builder.queryFields((t) => ({
  teams: t.field({
    type: TeamList,
    description: "Your organisation's teams, by name.",
    args: pageArgs(),
    resolve: async (_root, args, context) =>
      connectionOf(await listTeams(context.collections, viewerOf(context), args)),
  }),
}));
