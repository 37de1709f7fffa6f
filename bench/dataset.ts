/**
 * The benchmark dataset: one organisation on a team plan, its teams, users with API keys, meeting
 * types, a team CRM, and N meetings whose transcripts run from `minEntries` to `maxEntries` lines,
 * all drawn from a seeded PRNG (seeds/random.ts), so every run measures the same data.
 *
 * Everything but the meetings is a dataset in the seed format (seeds/format.ts) loaded by
 * `loadDataset`, which validates it. Meetings are generated in the seed meeting format too (the
 * webhook fan-out ingests them as such), but the bulk of them is written with insertMany for
 * speed: the derived fields are computed with the same domain functions `storeRecording` uses,
 * and the first meeting is stored through `storeRecording` itself and compared with what the
 * bulk path would have written, so the two cannot drift apart unnoticed.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ObjectId } from 'mongodb';
import type { MeetingSeed } from '../seeds/format.js';
import { type DatasetInput, loadDataset } from '../seeds/index.js';
import { Random } from '../seeds/random.js';
import type { Collections } from '../src/db/collections.js';
import { contentKinds, type MeetingDoc, RECORDING_ID_COUNTER } from '../src/db/documents.js';
import { storedContentOf } from '../src/domain/content.js';
import { recordingInputOf, recordingSchema } from '../src/domain/recording-format.js';
import { meetingFieldsOf, storeRecording } from '../src/domain/recordings.js';

export interface DatasetOptions {
  meetings: number;
  minEntries: number;
  maxEntries: number;
  seed: number;
}

export const defaultDatasetOptions: DatasetOptions = {
  meetings: 5000,
  minEntries: 200,
  maxEntries: 2000,
  seed: 424242,
};

const ORG = 'benchco';
const ORG_DOMAIN = 'benchco.test';
const BASE = Date.parse('2026-10-01T00:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
export const FIRST_RECORDING_ID = 500_001;

export const TEAMS = ['Sales', 'Engineering', 'Support', 'Marketing', 'Success', 'Product', 'Finance', 'Ops'];
const FIRST = [
  'Ada',
  'Ben',
  'Cleo',
  'Dev',
  'Eli',
  'Fay',
  'Gus',
  'Hana',
  'Ivo',
  'Jun',
  'Kai',
  'Lea',
  'Mo',
  'Nia',
];
const LAST = ['Stone', 'Reyes', 'Okafor', 'Lind', 'Moreau', 'Sato', 'Kowal', 'Berg', 'Haas', 'Iyer', 'Quinn'];
const USER_COUNT = 40;
const CUSTOMER_COUNT = 30;
const CONTACTS_PER_CUSTOMER = 6;
const TYPES = [
  'Discovery Call',
  'Product Demo',
  'Sprint Review',
  'Customer Support',
  'Quarterly Review',
  'Sync',
];
const WORDS = (
  'the we our customer export release plan team data report pricing contract renewal budget quarter ' +
  'timeline integration dashboard feedback onboarding migration index query latency webhook summary ' +
  'review pilot seats security legal approval roadmap feature request issue ticket escalation fix test ' +
  'deploy rollout metric growth pipeline forecast deal demo follow up next week tomorrow thanks sure ' +
  'right exactly agreed maybe probably think should could would will can need want have take make ' +
  'send share schedule call meeting notes action item owner deadline priority blocker risk scope'
).split(' ');

export interface BenchUser {
  email: string;
  name: string;
  team: string;
  apiKey: string;
}

function keyFor(i: number): string {
  return `mk_bench_${String(i).padStart(2, '0')}_${createHash('sha256').update(`bench-key-${i}`).digest('hex').slice(0, 32)}`;
}

/** The users, user 0 being the account admin who views all teams (the benchmark's caller). */
export const benchUsers: BenchUser[] = Array.from({ length: USER_COUNT }, (_, i) => {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
  return {
    email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@${ORG_DOMAIN}`,
    name: `${first} ${last}`,
    team: TEAMS[i % TEAMS.length]!,
    apiKey: keyFor(i),
  };
});

export const benchAdmin = benchUsers[0]!;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const customerDomain = (k: number) => `customer${k}.test`;
const contactEmail = (k: number, j: number) => `contact${j}@${customerDomain(k)}`;
const contactName = (k: number, j: number) =>
  `${FIRST[(k + j) % FIRST.length]} ${LAST[(k * 3 + j) % LAST.length]}`;

/** Everything but the meetings, in the seed format. */
export function baseDataset(): DatasetInput {
  const created = iso(BASE - 400 * DAY);
  return {
    organisations: [
      { slug: ORG, name: 'Bench Co', domains: [ORG_DOMAIN], plan: 'team', created_at: created },
    ],
    teams: TEAMS.map((name) => ({ organisation: ORG, name, created_at: created })),
    users: benchUsers.map((u, i) => ({
      organisation: ORG,
      email: u.email,
      name: u.name,
      status: 'active',
      team: u.team,
      created_at: created,
      permissions:
        i === 0
          ? {
              settings_access: { level: 'account_admin', teams: [] },
              view_access: { level: 'all_teams', teams: [] },
            }
          : {
              settings_access: { level: 'none', teams: [] },
              view_access: { level: 'team', teams: [u.team] },
            },
    })),
    api_keys: benchUsers.map((u) => ({ user: u.email, key: u.apiKey, kind: 'api_key', label: 'bench' })),
    meeting_types: TYPES.map((name) => ({ organisation: ORG, name, status: 'active', created_at: created })),
    crm_connections: [
      {
        owner: { organisation: ORG, team: 'Sales' },
        provider: 'hubspot',
        // Half of the customers' people and two thirds of the companies are in the CRM.
        contacts: Array.from({ length: CUSTOMER_COUNT }, (_, k) =>
          Array.from({ length: CONTACTS_PER_CUSTOMER / 2 }, (_, j) => ({
            name: contactName(k, j),
            email: contactEmail(k, j),
            record_url: `https://crm.example/contacts/${k}-${j}`,
          })),
        ).flat(),
        companies: Array.from({ length: 20 }, (_, k) => ({
          name: `Customer ${k} Inc`,
          domain: customerDomain(k),
          record_url: `https://crm.example/companies/${k}`,
        })),
        deals: Array.from({ length: 20 }, (_, k) => ({
          name: `Customer ${k} renewal`,
          amount: 1000 * (k + 1),
          company_domain: customerDomain(k),
          record_url: `https://crm.example/deals/${k}`,
        })),
      },
    ],
  };
}

function sentence(rng: Random, min: number, max: number): string {
  const n = rng.int(min, max);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

const hhmmss = (s: number) =>
  [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((v) => String(v).padStart(2, '0')).join(':');

/**
 * A sentence said once in the whole dataset, halfway through the middle meeting's transcript,
 * in words no other meeting uses: what the search scenario looks for.
 */
export const planted = {
  phrase: 'quokka zebrafish manifesto',
  sentence: 'So the quokka zebrafish manifesto slips by a week.',
  index: (count: number) => Math.floor(count / 2),
  line: (entries: number) => Math.floor(entries / 2),
};

export interface MeetingShape {
  /** Transcript lines, inclusive range. */
  minEntries: number;
  maxEntries: number;
  /** Who records it; default: drawn from the users. */
  recorder?: BenchUser;
  /** Sharing; default: drawn (mostly with teams, some private). */
  sharing?: MeetingSeed['sharing'];
  /** Recording start (ms); default: spaced back from the base date by index. */
  startMs?: number;
}

/**
 * Meeting number `index` (recording id FIRST_RECORDING_ID + index, recorded later as the index
 * grows) in the seed meeting format. The same index and seed give the same meeting.
 */
export function generateMeeting(
  seed: number,
  index: number,
  count: number,
  shape: MeetingShape,
): MeetingSeed {
  const rng = new Random(seed * 1_000_003 + index);
  const recorder = shape.recorder ?? rng.pick(benchUsers);
  const customer = rng.int(0, CUSTOMER_COUNT - 1);
  const internal = rng.sample(
    benchUsers.filter((u) => u !== recorder),
    rng.int(0, 3),
  );
  const external = rng.chance(0.7)
    ? rng.sample(
        Array.from({ length: CONTACTS_PER_CUSTOMER }, (_, j) => j),
        rng.int(1, 4),
      )
    : [];
  const invitees = [
    { name: recorder.name, email: recorder.email },
    ...internal.map((u) => ({ name: u.name, email: u.email })),
    ...external.map((j) => ({ name: contactName(customer, j), email: contactEmail(customer, j) })),
  ];
  const speakers: { display_name: string; matched_calendar_invitee_email: string | null }[] = invitees.map(
    (i) => ({ display_name: i.name, matched_calendar_invitee_email: i.email }),
  );
  speakers.push({ display_name: 'Unknown speaker', matched_calendar_invitee_email: null });

  const startMs = shape.startMs ?? BASE - (count - index) * 97 * MINUTE;
  const entries = rng.int(shape.minEntries, shape.maxEntries);
  const durationS = Math.max(entries * 4, 600);
  const transcript = Array.from({ length: entries }, (_, e) => ({
    speaker: e % 37 === 36 ? speakers.at(-1)! : speakers[e % (speakers.length - 1)]!,
    text: sentence(rng, 5, 18),
    timestamp: hhmmss(Math.floor((e * durationS) / entries)),
  }));
  if (index === planted.index(count)) transcript[planted.line(entries)]!.text = planted.sentence;
  const sharing = shape.sharing ?? drawSharing(rng, recorder);
  const recordingId = FIRST_RECORDING_ID + index;
  const teamOf = (email: string) => benchUsers.find((u) => u.email === email)?.team ?? null;
  return {
    recording_id: recordingId,
    recorded_by: recorder.email,
    title: sentence(rng, 2, 6).slice(0, -1),
    meeting_title: rng.chance(0.8) ? sentence(rng, 2, 5).slice(0, -1) : null,
    meeting_type: rng.chance(0.85) ? rng.pick(TYPES) : null,
    url: `https://meetings.example/calls/${recordingId}`,
    share_url: `https://meetings.example/share/${rng.token(12)}`,
    created_at: iso(startMs + durationS * 1000 + 5 * MINUTE),
    scheduled_start_time: iso(startMs - rng.int(0, 5) * MINUTE),
    scheduled_end_time: iso(startMs + 60 * MINUTE),
    recording_start_time: iso(startMs),
    recording_end_time: iso(startMs + durationS * 1000),
    transcript_language: rng.chance(0.9) ? 'en' : 'pt-BR',
    meeting_url: rng.chance(0.9) ? `https://conf.example/j/${rng.token(10)}` : null,
    calendar_invitees: invitees,
    sharing,
    transcript: transcript as MeetingSeed['transcript'],
    default_summary: {
      template_name: 'General',
      markdown_formatted: `## Summary\n\n${Array.from({ length: 6 }, () => `- ${sentence(rng, 8, 20)}`).join('\n')}\n`,
    },
    action_items: Array.from({ length: rng.int(0, 6) }, () => {
      const who = rng.pick(invitees);
      return {
        description: sentence(rng, 4, 12),
        user_generated: rng.chance(0.2),
        completed: rng.chance(0.3),
        recording_timestamp: hhmmss(rng.int(0, durationS)),
        assignee: { name: who.name, email: who.email, team: teamOf(who.email) },
      };
    }),
    highlights: Array.from({ length: rng.int(0, 5) }, () => {
      const start = rng.int(0, durationS - 60);
      const text = sentence(rng, 6, 16);
      return {
        type: rng.pick(['Objection', 'Pricing', 'Next step', 'Decision', 'Risk']),
        summary: rng.chance(0.3) ? text : rng.chance(0.8) ? sentence(rng, 4, 10) : null,
        start_time: start,
        end_time: start + rng.int(5, 60),
        text,
      };
    }),
  };
}

/** Mostly shared with every team or with one or two, some only with individuals or nobody. */
function drawSharing(rng: Random, recorder: BenchUser): MeetingSeed['sharing'] {
  const others = () =>
    rng.sample(
      benchUsers.filter((u) => u !== recorder),
      rng.int(0, 2),
    );
  switch (rng.weighted({ all: 45, teams: 40, individuals: 15 })) {
    case 'all':
      return { users: [], teams: [], all_teams: true };
    case 'teams':
      return {
        users: others().map((u) => u.email),
        teams: rng.sample(TEAMS, rng.int(1, 2)),
        all_teams: false,
      };
    default:
      return { users: others().map((u) => u.email), teams: [], all_teams: false };
  }
}

/** What the bulk path needs to turn seed meetings into documents. */
export interface References {
  orgId: ObjectId;
  orgDomains: string[];
  users: Map<string, { _id: ObjectId; teamId: ObjectId | null }>;
  teams: Map<string, ObjectId>;
  types: Map<string, ObjectId>;
}

/** The base dataset's organisation, users, teams and types, as the bulk path needs them. */
export async function benchReferences(collections: Collections): Promise<References> {
  const org = (await collections.organisations.findOne({ slug: ORG }))!;
  const users = await collections.users.find({ orgId: org._id }).toArray();
  const teams = await collections.teams.find({ orgId: org._id }).toArray();
  const types = await collections.meetingTypes.find({ orgId: org._id }).toArray();
  return {
    orgId: org._id,
    orgDomains: org.domains,
    users: new Map(users.map((u) => [u.email, { _id: u._id, teamId: u.teamId }])),
    teams: new Map(teams.map((t) => [t.name, t._id])),
    types: new Map(types.map((t) => [t.name, t._id])),
  };
}

/** The meeting document `storeRecording` writes for `seed` (without `_id`). */
function meetingFields(seed: MeetingSeed, refs: References, readyAt: Date): Omit<MeetingDoc, '_id'> {
  const input = recordingInputOf(seed);
  const recorder = refs.users.get(input.recorderEmail.toLowerCase())!;
  const fields = meetingFieldsOf(input, {
    recordingId: seed.recording_id,
    orgId: refs.orgId,
    orgDomains: refs.orgDomains,
    recorder,
    meetingTypeId: input.meetingType === null ? null : refs.types.get(input.meetingType)!,
    sharedTeamIds: input.sharing.allTeams ? [] : input.sharing.teams.map((n) => refs.teams.get(n)!),
  });
  // Written past the change log, as meetings stored before it existed are (position 0).
  return { ...fields, contentReadyAt: readyAt, eventsPending: false, updatedAt: readyAt, changeSeq: 0 };
}

export interface LoadedDataset {
  meetings: number;
  transcriptEntries: number;
  /** The meeting with the longest transcript (for GET /recordings/{id}/transcript). */
  longest: { recordingId: number; entries: number };
  seconds: number;
}

/** The documents of meetings `from`..`to` - 1, as the bulk path writes them. */
export interface MeetingBatch {
  seeds: MeetingSeed[];
  meetings: MeetingDoc[];
  contents: Record<(typeof contentKinds)[number], unknown[]>;
}

/**
 * Generates meetings `from`..`to` - 1 of a dataset of `options.meetings` (its size spaces the
 * recording times) as documents, without writing them; `references` comes from the loaded base.
 */
export function benchMeetingBatch(
  refs: References,
  options: DatasetOptions,
  from: number,
  to: number,
  readyAt = new Date(),
): MeetingBatch {
  const shape = { minEntries: options.minEntries, maxEntries: options.maxEntries };
  const seeds: MeetingSeed[] = [];
  for (let i = from; i < to; i++) {
    const m = generateMeeting(options.seed, i, options.meetings, shape);
    // A sample is checked against the seed format (the generator is the same for all).
    if (i % 500 === 0) recordingSchema.parse(m);
    seeds.push(m);
  }
  const inputs = seeds.map(recordingInputOf);
  const contents = Object.fromEntries(
    contentKinds.map((kind) => [
      kind,
      inputs.flatMap((input, i) => {
        const content = input.content[kind];
        // Stored as storeRecording stores it: the fields and their serialised form.
        return content
          ? [{ recordingId: seeds[i]!.recording_id, ...storedContentOf(kind, content, input.url) }]
          : [];
      }),
    ]),
  ) as MeetingBatch['contents'];
  return { seeds, meetings: seeds.map((m) => meetingFields(m, refs, readyAt)) as MeetingDoc[], contents };
}

/** Writes a batch: its meetings and every content kind, each with one insertMany. */
export function insertMeetingBatch(collections: Collections, batch: MeetingBatch): Promise<unknown> {
  return Promise.all([
    collections.meetings.insertMany(batch.meetings),
    ...contentKinds.map((kind) => collections[kind].insertMany(batch.contents[kind] as never[])),
  ]);
}

/**
 * Loads the dataset into empty collections: the base through `loadDataset`, the first meeting
 * through `storeRecording`, the others (up to `upTo`, default all) in batches with insertMany.
 * `appendBenchMeetings` adds the rest later.
 */
export async function loadBenchDataset(
  collections: Collections,
  options: DatasetOptions,
  progress: (done: number) => void = () => {},
  upTo = options.meetings,
): Promise<LoadedDataset> {
  const started = performance.now();
  await loadDataset(collections, baseDataset());
  const refs = await benchReferences(collections);
  const shape = { minEntries: options.minEntries, maxEntries: options.maxEntries };

  // The first meeting goes through the one write path; the bulk path must write the same document.
  const first = generateMeeting(options.seed, 0, options.meetings, shape);
  const checked = recordingSchema.safeParse(first);
  if (!checked.success)
    throw new Error(`generated meeting is not in the seed format: ${checked.error.message}`);
  const stored = await storeRecording(collections, recordingInputOf(checked.data));
  const { _id, contentReadyAt, ...storedFields } = stored.meeting;
  const { contentReadyAt: _r, ...bulkFields } = meetingFields(checked.data, refs, contentReadyAt!);
  if (!isDeepStrictEqual(storedFields, bulkFields)) {
    throw new Error(
      `the bulk path would store meeting ${first.recording_id} differently from storeRecording:\n` +
        `${JSON.stringify(storedFields)}\n${JSON.stringify(bulkFields)}`,
    );
  }
  const appended = await appendBenchMeetings(collections, options, refs, 1, upTo, progress);
  const firstEntries = first.transcript?.length ?? 0;
  return {
    meetings: upTo,
    transcriptEntries: appended.transcriptEntries + firstEntries,
    longest:
      firstEntries > appended.longest.entries
        ? { recordingId: first.recording_id, entries: firstEntries }
        : appended.longest,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Adds meetings `from`..`to` - 1 in batches (generation here overlapping insertion in the engine). */
export async function appendBenchMeetings(
  collections: Collections,
  options: DatasetOptions,
  refs: References,
  from: number,
  to: number,
  progress: (done: number) => void = () => {},
): Promise<Omit<LoadedDataset, 'meetings' | 'seconds'>> {
  let transcriptEntries = 0;
  let longest = { recordingId: 0, entries: -1 };
  const readyAt = new Date();
  const size = 50;
  // Up to three batches in flight keep both the engine and this process busy.
  const writing: Promise<unknown>[] = [];
  for (let start = from; start < to; start += size) {
    const batch = benchMeetingBatch(refs, options, start, Math.min(start + size, to), readyAt);
    for (const m of batch.seeds) {
      const n = m.transcript?.length ?? 0;
      transcriptEntries += n;
      if (n > longest.entries) longest = { recordingId: m.recording_id, entries: n };
    }
    if (writing.length >= 3) await writing.shift();
    progress(start);
    writing.push(insertMeetingBatch(collections, batch));
    // Let the driver write to the socket between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(writing);
  progress(to);
  await keepCounterAhead(collections, to);
  return { transcriptEntries, longest };
}

/** Keeps the id counter ahead of the explicit ids, as storeRecording does. */
export function keepCounterAhead(collections: Collections, meetings: number): Promise<unknown> {
  return collections.counters.updateOne(
    { _id: RECORDING_ID_COUNTER },
    { $max: { value: FIRST_RECORDING_ID + meetings - 1 } },
    { upsert: true },
  );
}
