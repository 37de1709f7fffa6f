/**
 * Validation of a dataset before anything is written: first the shape of every object (format.ts),
 * then, once the file is well-formed, the references between objects. Every problem is reported,
 * each as `path: message`, e.g. `users[5].team: no team "Sales" in organisation "acme"`.
 *
 * A dataset is self-contained: every reference must resolve inside the same file.
 */
import { formatPath } from '../src/domain/recording-format.js';
import { type Dataset, datasetSchema } from './format.js';

export type Validation = { ok: true; dataset: Dataset } | { ok: false; problems: string[] };

export class InvalidDatasetError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid dataset (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.join('\n')}`,
    );
    this.name = 'InvalidDatasetError';
  }
}

export function validateDataset(input: unknown): Validation {
  const parsed = datasetSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`) };
  }
  const problems = referenceProblems(parsed.data);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, dataset: parsed.data };
}

/** Like validateDataset, but throws InvalidDatasetError. */
export function parseDataset(input: unknown): Dataset {
  const result = validateDataset(input);
  if (!result.ok) throw new InvalidDatasetError(result.problems);
  return result.dataset;
}

function referenceProblems(d: Dataset): string[] {
  const problems: string[] = [];
  const report = (path: string, message: string) => problems.push(`${path}: ${message}`);

  /** Maps each natural key to the index of its first item; reports the later duplicates. */
  function keyed<T>(items: readonly T[], path: string, field: string, keyOf: (item: T) => string) {
    const seen = new Map<string, number>();
    items.forEach((item, i) => {
      const key = keyOf(item);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else report(`${path}[${i}].${field}`, `duplicate of ${path}[${first}]`);
    });
    return seen;
  }

  const orgs = keyed(d.organisations, 'organisations', 'slug', (o) => o.slug);
  const teams = keyed(d.teams, 'teams', 'name', (t) => `${t.organisation}\n${t.name}`);
  const hasTeam = (org: string, team: string) => teams.has(`${org}\n${team}`);

  const checkOrg = (path: string, slug: string) => {
    if (!orgs.has(slug)) report(path, `no organisation "${slug}"`);
    return orgs.has(slug);
  };
  const checkTeam = (path: string, org: string, team: string) => {
    if (!hasTeam(org, team)) report(path, `no team "${team}" in organisation "${org}"`);
  };

  for (const [i, t] of d.teams.entries()) checkOrg(`teams[${i}].organisation`, t.organisation);

  const users = keyed(d.users, 'users', 'email', (u) => u.email);
  d.users.forEach((u, i) => {
    if (!checkOrg(`users[${i}].organisation`, u.organisation)) return;
    if (u.team !== null) checkTeam(`users[${i}].team`, u.organisation, u.team);
    for (const grant of ['settings_access', 'view_access'] as const) {
      for (const [j, team] of u.permissions[grant].teams.entries()) {
        checkTeam(`users[${i}].permissions.${grant}.teams[${j}]`, u.organisation, team);
      }
    }
  });
  const userByEmail = (email: string) => {
    const i = users.get(email);
    return i === undefined ? undefined : d.users[i];
  };
  const checkUser = (path: string, email: string) => {
    const user = userByEmail(email);
    if (!user) report(path, `no user "${email}"`);
    return user;
  };

  keyed(d.api_keys, 'api_keys', 'key', (k) => k.key);
  for (const [i, k] of d.api_keys.entries()) checkUser(`api_keys[${i}].user`, k.user);

  const meetingTypes = keyed(d.meeting_types, 'meeting_types', 'name', (t) => `${t.organisation}\n${t.name}`);
  for (const [i, t] of d.meeting_types.entries())
    checkOrg(`meeting_types[${i}].organisation`, t.organisation);

  keyed(d.crm_connections, 'crm_connections', 'owner', (c) =>
    'user' in c.owner ? `user\n${c.owner.user}` : `team\n${c.owner.organisation}\n${c.owner.team}`,
  );
  d.crm_connections.forEach((c, i) => {
    const path = `crm_connections[${i}]`;
    if ('user' in c.owner) checkUser(`${path}.owner.user`, c.owner.user);
    else if (checkOrg(`${path}.owner.organisation`, c.owner.organisation)) {
      checkTeam(`${path}.owner.team`, c.owner.organisation, c.owner.team);
    }
    keyed(c.contacts, `${path}.contacts`, 'email', (x) => x.email);
    const companies = keyed(c.companies, `${path}.companies`, 'domain', (x) => x.domain);
    c.deals.forEach((deal, j) => {
      if (!companies.has(deal.company_domain)) {
        report(
          `${path}.deals[${j}].company_domain`,
          `no company with domain "${deal.company_domain}" in this connection`,
        );
      }
    });
  });

  keyed(d.meetings, 'meetings', 'recording_id', (m) => String(m.recording_id));
  d.meetings.forEach((m, i) => {
    const path = `meetings[${i}]`;
    for (const [j, email] of m.sharing.users.entries()) checkUser(`${path}.sharing.users[${j}]`, email);
    const invitees = new Set(m.calendar_invitees.map((x) => x.email));
    m.transcript?.forEach((entry, j) => {
      const matched = entry.speaker.matched_calendar_invitee_email;
      if (matched !== null && !invitees.has(matched)) {
        report(
          `${path}.transcript[${j}].speaker.matched_calendar_invitee_email`,
          `"${matched}" is not an invitee`,
        );
      }
    });

    const recorder = checkUser(`${path}.recorded_by`, m.recorded_by);
    if (!recorder) return;
    const org = recorder.organisation;
    if (m.meeting_type !== null && !meetingTypes.has(`${org}\n${m.meeting_type}`)) {
      report(`${path}.meeting_type`, `no meeting type "${m.meeting_type}" in organisation "${org}"`);
    }
    for (const [j, team] of m.sharing.teams.entries()) checkTeam(`${path}.sharing.teams[${j}]`, org, team);
    for (const [j, { assignee }] of (m.action_items ?? []).entries()) {
      if (assignee.team !== null) checkTeam(`${path}.action_items[${j}].assignee.team`, org, assignee.team);
    }
  });

  return problems;
}
