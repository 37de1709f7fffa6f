/**
 * A User in the public shape (docs/api/compatibility.md), from the RestUser selection of
 * fragments.graphql: the items of GET /users, and who the MCP door's get_identity names.
 */
import type * as z from 'zod';
import { lower } from './enums.js';
import type { RestUserFragment } from './fragments.generated.js';
import type * as S from './schemas.js';

/** Invited users have no permissions yet: the field is left out, as the public API does. */
export function restUser(u: RestUserFragment): z.output<typeof S.User> {
  return {
    name: u.name,
    email: u.email,
    created_at: u.createdAt,
    status: lower(u.status),
    ...(u.permissions
      ? {
          permissions: {
            settings_access: {
              level: lower(u.permissions.settingsAccess.level),
              teams: u.permissions.settingsAccess.teams.map((t) => t.name),
            },
            view_access: {
              level: lower(u.permissions.viewAccess.level),
              teams: u.permissions.viewAccess.teams.map((t) => t.name),
            },
          },
        }
      : {}),
  };
}
