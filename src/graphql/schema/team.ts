/** Team, and the `teams` query. */
import type { TeamDoc } from '../../db/documents.js';
import { listTeams } from '../../domain/directory.js';
import { builder } from '../builder.js';
import { connectionOf, forwardOnly } from '../connection.js';
import { viewerOf } from '../context.js';

export const Team = builder.objectRef<TeamDoc>('Team').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  teams: t.connection({
    type: Team,
    description: "Your organisation's teams, by name.",
    resolve: async (_root, args, context) => {
      forwardOnly(args);
      return connectionOf(await listTeams(context.collections, viewerOf(context), args));
    },
  }),
}));
