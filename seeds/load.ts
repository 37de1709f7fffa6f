/**
 * Loads a dataset into the collections. Idempotent: every object is upserted on its natural key,
 * so loading the same dataset twice leaves the same documents with the same `_id`s.
 *
 * Natural keys: organisation slug; team (organisation, name); user email; credential SHA-256 of
 * the key; meeting type (organisation, name); CRM connection owner; meeting recording_id. The CRM
 * records of a connection are replaced as a whole, and only when they differ.
 *
 * The dataset is validated first: an invalid one throws InvalidDatasetError and writes nothing.
 */
import type { Collection, Filter, ObjectId, UpdateFilter } from 'mongodb';
import type { Collections } from '../src/db/collections.js';
import type { CrmOwner, CrmRecordDoc } from '../src/db/documents.js';
import { recordingInputOf } from '../src/domain/recording-format.js';
import { storeRecordings } from '../src/domain/recordings.js';
import { ReferenceCache } from '../src/domain/reference-cache.js';
import { hashSecret } from '../src/domain/viewer.js';
import type { CrmConnectionSeed, DatasetInput, UserSeed } from './format.js';
import { parseDataset } from './validate.js';

export interface LoadCounts {
  organisations: number;
  teams: number;
  users: number;
  api_keys: number;
  meeting_types: number;
  crm_connections: number;
  crm_records: number;
  meetings: number;
}

/** How long a load keeps what a recording names (a minute: a long load reads them again, no harm). */
const LOAD_REFERENCES_MS = 60_000;

/** Recordings stored at once: each of their writes is one command for all (a few MB at most). */
const BATCH = 100;

/** Upserts one document on `filter` and returns its `_id` (kept across loads). */
async function upsert<T extends { _id: ObjectId }>(
  collection: Collection<T>,
  filter: Filter<T>,
  fields: Partial<Omit<T, '_id'>>,
): Promise<ObjectId> {
  const doc = await collection.findOneAndUpdate(filter, { $set: fields } as UpdateFilter<T>, {
    upsert: true,
    returnDocument: 'after',
  });
  return doc!._id;
}

export async function loadDataset(collections: Collections, input: DatasetInput): Promise<LoadCounts> {
  const d = parseDataset(input);
  const key = (...parts: string[]) => parts.join('\n');

  const orgIds = new Map<string, ObjectId>();
  for (const o of d.organisations) {
    const fields = { name: o.name, domains: o.domains, plan: o.plan, createdAt: new Date(o.created_at) };
    orgIds.set(o.slug, await upsert(collections.organisations, { slug: o.slug }, fields));
  }
  const orgId = (slug: string) => orgIds.get(slug)!;

  const teams = new Map<string, { id: ObjectId; createdAt: string }>();
  for (const t of d.teams) {
    const id = await upsert(
      collections.teams,
      { orgId: orgId(t.organisation), name: t.name },
      { createdAt: new Date(t.created_at) },
    );
    teams.set(key(t.organisation, t.name), { id, createdAt: t.created_at });
  }
  const team = (org: string, name: string) => teams.get(key(org, name))!;
  const teamId = (org: string, name: string) => team(org, name).id;

  const userIds = new Map<string, ObjectId>();
  const usersByEmail = new Map<string, UserSeed>();
  for (const u of d.users) {
    const grant = <L>(g: { level: L; teams: string[] }) => ({
      level: g.level,
      teamIds: g.teams.map((name) => teamId(u.organisation, name)),
    });
    const fields = {
      orgId: orgId(u.organisation),
      name: u.name,
      status: u.status,
      teamId: u.team === null ? null : teamId(u.organisation, u.team),
      settingsAccess: grant(u.permissions.settings_access),
      viewAccess: grant(u.permissions.view_access),
      createdAt: new Date(u.created_at),
    };
    userIds.set(u.email, await upsert(collections.users, { email: u.email }, fields));
    usersByEmail.set(u.email, u);
  }

  for (const k of d.api_keys) {
    const secretHash = hashSecret(k.key);
    await upsert(
      collections.credentials,
      { secretHash },
      {
        kind: k.kind,
        userId: userIds.get(k.user)!,
        prefix: k.key.slice(0, 8),
        label: k.label,
        appName: k.app_name ?? null,
        createdAt: new Date(k.created_at ?? usersByEmail.get(k.user)!.created_at),
        revokedAt: k.revoked_at ? new Date(k.revoked_at) : null,
      },
    );
  }

  for (const t of d.meeting_types) {
    const fields = { status: t.status, createdAt: new Date(t.created_at) };
    await upsert(collections.meetingTypes, { orgId: orgId(t.organisation), name: t.name }, fields);
  }

  let crmRecords = 0;
  for (const c of d.crm_connections) {
    let owner: CrmOwner;
    let ownerCreatedAt: string;
    if ('user' in c.owner) {
      owner = { kind: 'user', id: userIds.get(c.owner.user)! };
      ownerCreatedAt = usersByEmail.get(c.owner.user)!.created_at;
    } else {
      const ownerTeam = team(c.owner.organisation, c.owner.team);
      owner = { kind: 'team', id: ownerTeam.id };
      ownerCreatedAt = ownerTeam.createdAt;
    }
    const connectionId = await upsert(
      collections.crmConnections,
      { owner },
      { provider: c.provider, createdAt: new Date(c.created_at ?? ownerCreatedAt) },
    );
    crmRecords += await replaceCrmRecords(collections, connectionId, c);
  }

  // The names the recordings refer to were written just above: kept for the load rather than read
  // again for every recording. Stored in batches: a write per recording and kind was the demo's
  // load time, most of a test's start.
  const references = new ReferenceCache(collections, LOAD_REFERENCES_MS);
  for (let i = 0; i < d.meetings.length; i += BATCH) {
    const batch = d.meetings.slice(i, i + BATCH).map(recordingInputOf);
    await storeRecordings(collections, batch, { references });
  }

  return {
    organisations: d.organisations.length,
    teams: d.teams.length,
    users: d.users.length,
    api_keys: d.api_keys.length,
    meeting_types: d.meeting_types.length,
    crm_connections: d.crm_connections.length,
    crm_records: crmRecords,
    meetings: d.meetings.length,
  };
}

type CrmRecordFields = CrmRecordDoc extends infer R
  ? R extends CrmRecordDoc
    ? Omit<R, '_id'>
    : never
  : never;

/** Replaces the connection's records when they differ from the dataset's; returns how many it has. */
async function replaceCrmRecords(collections: Collections, connectionId: ObjectId, c: CrmConnectionSeed) {
  const wanted: CrmRecordFields[] = [
    ...c.contacts.map((x) => ({
      connectionId,
      kind: 'contact' as const,
      name: x.name,
      email: x.email,
      recordUrl: x.record_url,
    })),
    ...c.companies.map((x) => ({
      connectionId,
      kind: 'company' as const,
      name: x.name,
      domain: x.domain,
      recordUrl: x.record_url,
    })),
    ...c.deals.map((x) => ({
      connectionId,
      kind: 'deal' as const,
      name: x.name,
      amount: x.amount,
      companyDomain: x.company_domain,
      recordUrl: x.record_url,
    })),
  ];
  // Compare without _id and connectionId, field by field in a fixed order.
  const signature = (records: readonly CrmRecordFields[]) =>
    JSON.stringify(
      records.map((r) => [
        r.kind,
        r.name,
        r.recordUrl,
        'email' in r ? r.email : null,
        'domain' in r ? r.domain : null,
        'amount' in r ? r.amount : null,
        'companyDomain' in r ? r.companyDomain : null,
      ]),
    );
  const existing = await collections.crmRecords.find({ connectionId }).sort({ _id: 1 }).toArray();
  if (signature(existing) !== signature(wanted)) {
    await collections.crmRecords.deleteMany({ connectionId });
    if (wanted.length > 0) await collections.crmRecords.insertMany(wanted as CrmRecordDoc[]);
  }
  return wanted.length;
}
