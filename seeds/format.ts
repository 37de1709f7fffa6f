/**
 * The seed dataset: a JSON file whose objects use the field names and shapes of the REST objects
 * (docs/api/rest.md, snake_case), plus what the API does not show (organisation domains and plans,
 * plain API keys, CRM records). Its `meetings` are recordings in the recording format that
 * ingestion takes (src/domain/recording-format.ts).
 *
 * This file checks each object on its own; references between objects are checked in validate.ts.
 * Emails and domains are lower-cased while parsing, so later code compares them directly.
 */
import { z } from 'zod';
import { domain, email, httpUrl, recordingSchema, text, timestamp } from '../src/domain/recording-format.js';

export const organisationSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'Expected lower-case letters, digits and dashes'),
  name: text,
  /** The internal email domains: an invitee outside them is external. */
  domains: z.array(domain),
  plan: z.enum(['team', 'individual']),
  created_at: timestamp,
});

export const teamSchema = z.strictObject({
  organisation: z.string(),
  name: text,
  created_at: timestamp,
});

// Levels that name their teams need at least one; the others cover no team or every team and take none.
const levelsNamingTeams = new Set(['team_admin', 'team', 'multiple_teams']);

function grant<L extends string>(levels: readonly [L, ...L[]]) {
  return z.strictObject({ level: z.enum(levels), teams: z.array(text) }).superRefine((value, ctx) => {
    const names = levelsNamingTeams.has(value.level);
    if (names && value.teams.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['teams'],
        message: `level "${value.level}" needs at least one team`,
      });
    }
    if (!names && value.teams.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['teams'], message: `level "${value.level}" takes no teams` });
    }
    if (value.level === 'team' && value.teams.length > 1) {
      ctx.addIssue({ code: 'custom', path: ['teams'], message: 'level "team" takes exactly one team' });
    }
  });
}

export const userSchema = z.strictObject({
  organisation: z.string(),
  email,
  name: text.nullable(),
  status: z.enum(['active', 'deactivated', 'invited']),
  /** The user's team, by name, in the user's organisation. */
  team: text.nullable(),
  created_at: timestamp,
  permissions: z.strictObject({
    settings_access: grant(['none', 'team_admin', 'account_admin']),
    view_access: grant(['own_meetings', 'team', 'multiple_teams', 'all_teams']),
  }),
});

export const apiKeySchema = z
  .strictObject({
    user: email,
    /** The plain secret; only its SHA-256 is stored. */
    key: z.string().regex(/^\S{16,}$/, 'Expected at least 16 characters without spaces'),
    kind: z.enum(['api_key', 'connected_app']),
    label: text,
    app_name: text.nullable().optional(),
    /** Defaults to the user's created_at. */
    created_at: timestamp.optional(),
    revoked_at: timestamp.nullable().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.kind === 'connected_app' && !value.app_name) {
      ctx.addIssue({ code: 'custom', path: ['app_name'], message: 'a connected_app needs its app_name' });
    }
    if (value.kind === 'api_key' && value.app_name) {
      ctx.addIssue({ code: 'custom', path: ['app_name'], message: 'only a connected_app has an app_name' });
    }
  });

export const meetingTypeSchema = z.strictObject({
  organisation: z.string(),
  name: text,
  status: z.enum(['active', 'inactive']),
  created_at: timestamp,
});

export const crmConnectionSchema = z.strictObject({
  owner: z.union([z.strictObject({ user: email }), z.strictObject({ organisation: z.string(), team: text })]),
  provider: text,
  /** Defaults to the owner's created_at. */
  created_at: timestamp.optional(),
  contacts: z.array(z.strictObject({ name: text, email, record_url: httpUrl })),
  companies: z.array(z.strictObject({ name: text, domain, record_url: httpUrl })),
  /** amount in dollars; company_domain names one of this connection's companies. */
  deals: z.array(
    z.strictObject({
      name: text,
      amount: z.number().nonnegative(),
      company_domain: domain,
      record_url: httpUrl,
    }),
  ),
});

/** Every top-level list may be left out of a file; it then counts as empty. */
export const datasetSchema = z.strictObject({
  organisations: z.array(organisationSchema).default([]),
  teams: z.array(teamSchema).default([]),
  users: z.array(userSchema).default([]),
  api_keys: z.array(apiKeySchema).default([]),
  meeting_types: z.array(meetingTypeSchema).default([]),
  crm_connections: z.array(crmConnectionSchema).default([]),
  meetings: z.array(recordingSchema).default([]),
});

/** A parsed dataset: every list present, emails and domains lower case. */
export type Dataset = z.output<typeof datasetSchema>;
/** What a file (or a generator) may hand in. */
export type DatasetInput = z.input<typeof datasetSchema>;

export type OrganisationSeed = Dataset['organisations'][number];
export type TeamSeed = Dataset['teams'][number];
export type UserSeed = Dataset['users'][number];
export type ApiKeySeed = Dataset['api_keys'][number];
export type MeetingTypeSeed = Dataset['meeting_types'][number];
export type CrmConnectionSeed = Dataset['crm_connections'][number];
export type MeetingSeed = Dataset['meetings'][number];
