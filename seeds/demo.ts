/**
 * The demo dataset: a deterministic generator (seeded PRNG, fixed base date) covering every case
 * of docs/api/access.md, and the personas whose API keys `npm start` prints. seeds/README.md gives the tour.
 *
 * Acme (team plan) has four teams, admins, members with each view level, an invited and a
 * deactivated user, a user CRM and a team CRM. Globex (individual plan) is one consultant who
 * records meetings with Acme people and shares them individually.
 */
import { createHash } from 'node:crypto';
import {
  actionItemsFor,
  type ContentInput,
  highlightsFor,
  type Speaker,
  summaryFor,
  type Topic,
  transcriptFor,
} from './demo-content.js';
import type { CrmConnectionSeed, Dataset, MeetingSeed, UserSeed } from './format.js';
import { Random } from './random.js';

const SEED = 20261001;
/** "Now" for the demo: every meeting happened in the 180 days before. */
const BASE = Date.parse('2026-10-01T00:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const MEETING_COUNT = 200;
const FIRST_RECORDING_ID = 100_001;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const day = (date: string) => `${date}T09:00:00Z`;

// ---------------------------------------------------------------- organisations, teams, users

const ACME = 'acme';
const GLOBEX = 'globex';
const TEAMS = ['Sales', 'Engineering', 'Support', 'Marketing'] as const;
type TeamName = (typeof TEAMS)[number];

type Settings = UserSeed['permissions']['settings_access']['level'];
type View = UserSeed['permissions']['view_access']['level'];

interface Person {
  organisation?: string;
  email: string;
  name: string | null;
  team: TeamName | null;
  /** Defaults: settings none, view own_meetings, status active, organisation Acme. */
  settings?: [Settings, TeamName[]];
  view?: [View, TeamName[]];
  status?: UserSeed['status'];
  joined: string;
}

function user(p: Person): UserSeed {
  const [settings, settingsTeams] = p.settings ?? ['none', []];
  const [view, viewTeams] = p.view ?? ['own_meetings', []];
  return {
    organisation: p.organisation ?? ACME,
    email: p.email,
    name: p.name,
    status: p.status ?? 'active',
    team: p.team,
    created_at: day(p.joined),
    permissions: {
      settings_access: { level: settings, teams: settingsTeams },
      view_access: { level: view, teams: viewTeams },
    },
  };
}

const people = {
  alice: user({
    email: 'alice.moreau@acme.test',
    name: 'Alice Moreau',
    team: null,
    settings: ['account_admin', []],
    view: ['all_teams', []],
    joined: '2024-01-15',
  }),
  tom: user({
    email: 'tom.baker@acme.test',
    name: 'Tom Baker',
    team: 'Sales',
    settings: ['team_admin', ['Sales']],
    view: ['team', ['Sales']],
    joined: '2024-01-22',
  }),
  sam: user({ email: 'sam.rivera@acme.test', name: 'Sam Rivera', team: 'Sales', joined: '2024-02-12' }),
  noah: user({
    email: 'noah.kim@acme.test',
    name: 'Noah Kim',
    team: 'Sales',
    view: ['team', ['Sales']],
    joined: '2024-06-03',
  }),
  // A second internal domain: Engineering came with an acquisition.
  eric: user({
    email: 'eric.larsen@acme-labs.test',
    name: 'Eric Larsen',
    team: 'Engineering',
    settings: ['team_admin', ['Engineering']],
    view: ['team', ['Engineering']],
    joined: '2024-01-29',
  }),
  mike: user({
    email: 'mike.chen@acme.test',
    name: 'Mike Chen',
    team: 'Engineering',
    view: ['multiple_teams', ['Sales', 'Support']],
    joined: '2024-03-04',
  }),
  tina: user({
    email: 'tina.nguyen@acme.test',
    name: 'Tina Nguyen',
    team: 'Support',
    view: ['team', ['Support']],
    joined: '2024-02-19',
  }),
  sofia: user({
    email: 'sofia.costa@acme.test',
    name: 'Sofia Costa',
    team: 'Support',
    settings: ['team_admin', ['Support', 'Marketing']],
    view: ['multiple_teams', ['Support', 'Marketing']],
    joined: '2024-04-08',
  }),
  ava: user({
    email: 'ava.patel@acme.test',
    name: 'Ava Patel',
    team: 'Marketing',
    view: ['all_teams', []],
    joined: '2024-03-18',
  }),
  mara: user({ email: 'mara.jones@acme.test', name: 'Mara Jones', team: 'Marketing', joined: '2024-09-09' }),
  dana: user({
    email: 'dana.fischer@acme.test',
    name: 'Dana Fischer',
    team: 'Support',
    view: ['team', ['Support']],
    status: 'deactivated',
    joined: '2024-02-26',
  }),
  ian: user({
    email: 'ian.walsh@acme.test',
    name: 'Ian Walsh',
    team: 'Engineering',
    status: 'invited',
    joined: '2026-09-20',
  }),
  // Invited before giving a name: the users list shows name null.
  pat: user({
    email: 'pat.obrien@acme.test',
    name: null,
    team: null,
    status: 'invited',
    joined: '2026-09-25',
  }),
  gina: user({
    organisation: GLOBEX,
    email: 'gina.hart@globex.test',
    name: 'Gina Hart',
    team: null,
    settings: ['account_admin', []],
    joined: '2024-05-06',
  }),
};
type PersonKey = keyof typeof people;

/** Dana left the company 90 days before the base date: she records nothing after that. */
const DANA_LEFT = BASE - 90 * DAY;
/** The Quarterly Business Review type was retired (made inactive) 120 days before the base date. */
const QBR_RETIRED = BASE - 120 * DAY;

// ---------------------------------------------------------------- personas and their keys

export interface DemoPersona {
  label: string;
  name: string;
  email: string;
  /** Send as `X-Api-Key`, or for a connected app as `Authorization: Bearer`. */
  apiKey: string;
  kind: 'api_key' | 'connected_app';
  demonstrates: string;
}

/** A fixed, long key: the same on every run, so docs and scripts can use it. */
function demoKey(prefix: 'mk' | 'mct', name: string): string {
  const suffix = createHash('sha256').update(`meetings-demo:${name}`).digest('hex').slice(0, 32);
  return `${prefix}_demo_${name}_${suffix}`;
}

interface PersonaSpec {
  label: string;
  person: PersonKey;
  key: string;
  kind: DemoPersona['kind'];
  demonstrates: string;
  appName?: string;
  revoked?: boolean;
}

const personaSpecs: PersonaSpec[] = [
  {
    label: 'account admin',
    person: 'alice',
    key: demoKey('mk', 'acme_admin'),
    kind: 'api_key',
    demonstrates: 'GET /users works; view all_teams; still cannot see private meetings of others',
  },
  {
    label: 'team admin (Sales)',
    person: 'tom',
    key: demoKey('mk', 'acme_sales_admin'),
    kind: 'api_key',
    demonstrates: 'team_admin of Sales (GET /users is 403); sees meetings shared with Sales; Sales team CRM',
  },
  {
    label: 'member: own meetings + CRM',
    person: 'sam',
    key: demoKey('mk', 'acme_sales_rep'),
    kind: 'api_key',
    demonstrates:
      'view own_meetings; own CRM connection wins over the Sales team CRM; meetings shared by Globex',
  },
  {
    label: 'member: team view',
    person: 'tina',
    key: demoKey('mk', 'acme_support'),
    kind: 'api_key',
    demonstrates: 'view team (Support); no CRM (crm_matches.error "no CRM connected")',
  },
  {
    label: 'member: multiple teams',
    person: 'mike',
    key: demoKey('mk', 'acme_engineer'),
    kind: 'api_key',
    demonstrates: 'in Engineering, view multiple_teams (Sales, Support)',
  },
  {
    label: 'member: all teams view',
    person: 'ava',
    key: demoKey('mk', 'acme_marketing'),
    kind: 'api_key',
    demonstrates: 'view all_teams: every meeting shared with any team',
  },
  {
    label: 'external user (Globex)',
    person: 'gina',
    key: demoKey('mk', 'globex_consultant'),
    kind: 'api_key',
    demonstrates:
      'individual plan; records meetings shared with Acme users; sees Acme meetings shared with her',
  },
  {
    label: 'connected app (Tom)',
    person: 'tom',
    key: demoKey('mct', 'acme_flowbridge'),
    kind: 'connected_app',
    appName: 'FlowBridge',
    demonstrates: 'OAuth token (Bearer): include_summary / include_transcript on /meetings are 400',
  },
  {
    label: 'deactivated user (401)',
    person: 'dana',
    key: demoKey('mk', 'acme_deactivated'),
    kind: 'api_key',
    demonstrates: 'a deactivated user: every request is 401',
  },
  {
    label: 'invited user (401)',
    person: 'ian',
    key: demoKey('mk', 'acme_invited'),
    kind: 'api_key',
    demonstrates: 'an invited user: every request is 401',
  },
  {
    label: 'revoked key (401)',
    person: 'sam',
    key: demoKey('mk', 'acme_revoked'),
    kind: 'api_key',
    revoked: true,
    demonstrates: 'a revoked key of an active user: 401',
  },
];

export const demoPersonas: readonly DemoPersona[] = personaSpecs.map((p) => ({
  label: p.label,
  name: people[p.person].name ?? people[p.person].email,
  email: people[p.person].email,
  apiKey: p.key,
  kind: p.kind,
  demonstrates: p.demonstrates,
}));

// ---------------------------------------------------------------- external companies and CRMs

interface Company {
  name: string;
  domain: string;
  people: string[];
}

const companies: Company[] = [
  { name: 'Initech', domain: 'initech.test', people: ['Priya Raman', 'Jonas Berg', 'Lena Fox'] },
  { name: 'Umbrella Health', domain: 'umbrella.test', people: ['Marcus Webb', 'Chloe Dubois'] },
  { name: 'Hooli', domain: 'hooli.test', people: ['Ravi Shah', 'Emma Clarke', 'Owen Price'] },
  { name: 'Vandelay Imports', domain: 'vandelay.test', people: ['Iris Novak', 'Felix Grant'] },
  // In no CRM: its invitees never match.
  { name: 'Soylent Foods', domain: 'soylent.test', people: ['Hana Sato', 'Diego Ortiz'] },
];
const company = (domain: string) => companies.find((c) => c.domain === domain)!;
const emailOf = (name: string, domain: string) => `${name.toLowerCase().replace(/ /g, '.')}@${domain}`;

function crmConnections(): CrmConnectionSeed[] {
  const hubspot = 'https://crm.hubspot.test/acme';
  const salesforce = 'https://acme.salesforce.test/lightning/r';
  const contact = (base: string, n: number, name: string, domain: string) => ({
    name,
    email: emailOf(name, domain),
    record_url: `${base}/contacts/${n}`,
  });
  const firm = (base: string, n: number, domain: string) => ({
    name: company(domain).name,
    domain,
    record_url: `${base}/companies/${n}`,
  });
  return [
    {
      owner: { organisation: ACME, team: 'Sales' },
      provider: 'hubspot',
      contacts: [
        contact(hubspot, 501, 'Priya Raman', 'initech.test'),
        contact(hubspot, 502, 'Jonas Berg', 'initech.test'),
        contact(hubspot, 503, 'Marcus Webb', 'umbrella.test'),
        contact(hubspot, 504, 'Iris Novak', 'vandelay.test'),
      ],
      companies: [
        firm(hubspot, 71, 'initech.test'),
        firm(hubspot, 72, 'umbrella.test'),
        firm(hubspot, 73, 'vandelay.test'),
      ],
      deals: [
        {
          name: 'Initech: 40 seats',
          amount: 48_000,
          company_domain: 'initech.test',
          record_url: `${hubspot}/deals/9001`,
        },
        {
          name: 'Initech: support add-on',
          amount: 6_500,
          company_domain: 'initech.test',
          record_url: `${hubspot}/deals/9002`,
        },
        {
          name: 'Umbrella Health pilot',
          amount: 9_500,
          company_domain: 'umbrella.test',
          record_url: `${hubspot}/deals/9003`,
        },
        {
          name: 'Vandelay annual plan',
          amount: 30_000,
          company_domain: 'vandelay.test',
          record_url: `${hubspot}/deals/9004`,
        },
      ],
    },
    {
      owner: { user: people.sam.email },
      provider: 'salesforce',
      contacts: [
        contact(salesforce, 1001, 'Ravi Shah', 'hooli.test'),
        contact(salesforce, 1002, 'Emma Clarke', 'hooli.test'),
        contact(salesforce, 1003, 'Lena Fox', 'initech.test'),
      ],
      companies: [firm(salesforce, 201, 'hooli.test'), firm(salesforce, 202, 'initech.test')],
      deals: [
        {
          name: 'Hooli platform',
          amount: 120_000,
          company_domain: 'hooli.test',
          record_url: `${salesforce}/deals/3001`,
        },
        {
          name: 'Initech renewal',
          amount: 52_250.5,
          company_domain: 'initech.test',
          record_url: `${salesforce}/deals/3002`,
        },
      ],
    },
  ];
}

// ---------------------------------------------------------------- meetings

interface Invitee {
  name: string | null;
  email: string | null;
}

/** What a scenario decides about one meeting; `buildMeeting` fills in the rest. */
interface Plan {
  topic: Topic;
  recorder: UserSeed;
  title: string;
  meetingType: string | null;
  internal: UserSeed[];
  external: Invitee[];
  company: string | null;
  sharing: MeetingSeed['sharing'];
}

const acmeMembers = (at: number) =>
  Object.values(people).filter(
    (u) =>
      u.organisation === ACME && (u.status === 'active' || (u.status === 'deactivated' && at < DANA_LEFT)),
  );
const teamOf = (team: TeamName) => (at: number) => acmeMembers(at).filter((u) => u.team === team);

/** External invitees from one or two companies; with two, half the time in equal numbers (a tie). */
function externalInvitees(rng: Random, pool: Company[]): { invitees: Invitee[]; company: string } {
  const [first, second] = rng.sample(pool, rng.chance(0.35) ? 2 : 1) as [Company, Company | undefined];
  const firstCount = rng.int(1, first.people.length);
  const invitees = rng.sample(first.people, firstCount).map((name) => ({
    // Now and then a guest known by email only.
    name: rng.chance(0.1) ? null : name,
    email: emailOf(name, first.domain),
  }));
  if (second) {
    const count = rng.chance(0.5)
      ? Math.min(firstCount, second.people.length)
      : rng.int(1, second.people.length);
    for (const name of rng.sample(second.people, count))
      invitees.push({ name, email: emailOf(name, second.domain) });
  }
  return { invitees, company: first.name };
}

function sharingFor(rng: Random, recorder: UserSeed, internal: UserSeed[], weights: Record<string, number>) {
  const kind = rng.weighted(weights);
  const colleagues = internal.filter((u) => u !== recorder && u.status === 'active');
  const someone = () =>
    colleagues.length > 0
      ? rng.sample(colleagues, rng.int(1, 2)).map((u) => u.email)
      : [rng.pick(acmeMembers(BASE).filter((u) => u !== recorder)).email];
  const ownTeam = (recorder.team as TeamName | null) ?? rng.pick(TEAMS);
  const otherTeams = TEAMS.filter((t) => t !== ownTeam);
  const sharing: MeetingSeed['sharing'] = { users: [], teams: [], all_teams: false };
  if (kind === 'individual' || kind === 'individual_and_team') sharing.users = someone();
  if (kind === 'single_team' || kind === 'individual_and_team')
    sharing.teams = [rng.chance(0.75) ? ownTeam : rng.pick(otherTeams)];
  if (kind === 'multiple_teams') sharing.teams = [ownTeam, ...rng.sample(otherTeams, rng.int(1, 2))];
  if (kind === 'all_teams') sharing.all_teams = true;
  return sharing;
}

const usualSharing = {
  private: 25,
  individual: 20,
  single_team: 25,
  multiple_teams: 12,
  all_teams: 8,
  individual_and_team: 10,
};

const scenarios: Record<Topic, (rng: Random, at: number) => Plan> = {
  sales(rng, at) {
    const recorder = rng.pick([people.tom, people.sam, people.noah]);
    const internal = rng.chance(0.4)
      ? rng.sample(
          teamOf('Sales')(at).filter((u) => u !== recorder),
          1,
        )
      : [];
    const { invitees, company } = externalInvitees(rng, companies);
    const meetingType =
      at < QBR_RETIRED && rng.chance(0.3)
        ? 'Quarterly Business Review'
        : rng.weighted({ 'Discovery Call': 4, 'Product Demo': 3, none: 2 });
    const titles: Record<string, string> = {
      'Quarterly Business Review': `${company} QBR`,
      'Discovery Call': `Discovery call with ${company}`,
      'Product Demo': `Product demo for ${company}`,
      none: `Check-in with ${company}`,
    };
    return {
      topic: 'sales',
      recorder,
      title: titles[meetingType]!,
      meetingType: meetingType === 'none' ? null : meetingType,
      internal,
      external: invitees,
      company,
      sharing: sharingFor(rng, recorder, internal, usualSharing),
    };
  },
  engineering(rng, at) {
    const engineers = teamOf('Engineering')(at);
    const recorder = rng.pick(engineers);
    const guests = rng.sample(acmeMembers(at), rng.int(0, 2));
    const internal = [...new Set([...engineers, ...guests])].filter((u) => u !== recorder);
    const sprint = rng.chance(0.5);
    return {
      topic: 'engineering',
      recorder,
      title: sprint
        ? 'Sprint review'
        : rng.pick(['Backend sync', 'Architecture review: pagination', 'Incident retro: export timeouts']),
      meetingType: sprint ? 'Sprint Review' : null,
      internal,
      external: [],
      company: null,
      sharing: sharingFor(rng, recorder, internal, usualSharing),
    };
  },
  support(rng, at) {
    const recorder = rng.pick(teamOf('Support')(at));
    const internalOnly = rng.chance(0.2);
    const customer = rng.pick(companies);
    const external: Invitee[] = internalOnly
      ? []
      : rng
          .sample(customer.people, rng.int(1, 2))
          .map((name) => ({ name, email: emailOf(name, customer.domain) }));
    // A phone dial-in: an invitee with no email.
    if (!internalOnly && rng.chance(0.15)) external.push({ name: 'Dial-in guest', email: null });
    const internal = rng.sample(
      acmeMembers(at).filter((u) => u !== recorder),
      rng.int(0, 2),
    );
    return {
      topic: 'support',
      recorder,
      title: internalOnly ? 'Support weekly' : `Escalation: export timeouts (${customer.name})`,
      meetingType: !internalOnly && rng.chance(0.8) ? 'Customer Support' : null,
      internal,
      external,
      company: internalOnly ? null : customer.name,
      sharing: sharingFor(rng, recorder, internal, usualSharing),
    };
  },
  marketing(rng, at) {
    const recorder = rng.pick([people.ava, people.mara]);
    const internal = rng.sample(
      acmeMembers(at).filter((u) => u !== recorder),
      rng.int(1, 3),
    );
    const caseStudy = rng.chance(0.3);
    const soylent = company('soylent.test');
    return {
      topic: 'marketing',
      recorder,
      title: caseStudy
        ? `Case study interview with ${soylent.name}`
        : rng.pick(['Webinar planning', 'Campaign review']),
      meetingType: null,
      internal,
      external: caseStudy
        ? [{ name: soylent.people[0]!, email: emailOf(soylent.people[0]!, soylent.domain) }]
        : [],
      company: caseStudy ? soylent.name : null,
      sharing: sharingFor(rng, recorder, internal, usualSharing),
    };
  },
  leadership(rng) {
    const recorder = people.alice;
    const internal = [people.tom, people.eric, people.sofia, people.ava];
    return {
      topic: 'leadership',
      recorder,
      title: rng.pick(['Monthly all-hands', 'Leadership sync']),
      meetingType: null,
      internal,
      external: [],
      company: null,
      sharing: sharingFor(rng, recorder, internal, { all_teams: 6, multiple_teams: 2, private: 1 }),
    };
  },
  consulting(rng) {
    const gina: Invitee = { name: people.gina.name, email: people.gina.email };
    const clients = rng.sample([people.alice, people.sam, people.tom], rng.int(1, 2));
    if (rng.chance(0.7)) {
      // The external recorder: shares with the Acme people in the meeting, or keeps it private.
      return {
        topic: 'consulting',
        recorder: people.gina,
        title: 'Advisory session: onboarding process',
        meetingType: rng.chance(0.6) ? 'Advisory Session' : null,
        internal: [],
        external: clients.map((u) => ({ name: u.name, email: u.email })),
        company: 'Acme',
        sharing: { users: rng.chance(0.8) ? clients.map((u) => u.email) : [], teams: [], all_teams: false },
      };
    }
    // An Acme recorder inviting the consultant, and sharing the recording with her.
    const [recorder, ...others] = clients as [UserSeed, ...UserSeed[]];
    const sharing = sharingFor(rng, recorder, others, { private: 1, individual: 3, individual_and_team: 1 });
    if (sharing.users.length > 0) sharing.users = [people.gina.email];
    return {
      topic: 'consulting',
      recorder,
      title: 'Onboarding review with Gina',
      meetingType: null,
      internal: others,
      external: [gina],
      company: 'Globex',
      sharing,
    };
  },
};

const topicWeights: Record<Topic, number> = {
  sales: 34,
  engineering: 20,
  support: 18,
  marketing: 10,
  leadership: 5,
  consulting: 13,
};

interface Slot {
  scheduledStart: number;
  scheduledMinutes: number;
  /** How late the recording started, in seconds. */
  lateBy: number;
}

/** Weekday business-hour slots over the 180 days before BASE, oldest first. */
function slots(rng: Random): Slot[] {
  const out: Slot[] = [];
  for (let i = 0; i < MEETING_COUNT; i++) {
    let date = BASE - rng.int(1, 180) * DAY;
    while ([0, 6].includes(new Date(date).getUTCDay())) date -= DAY;
    out.push({
      scheduledStart: date + rng.int(8, 16) * 60 * MINUTE + (rng.chance(0.5) ? 30 * MINUTE : 0),
      scheduledMinutes: rng.pick([15, 30, 30, 45, 60]),
      lateBy: rng.int(0, 180),
    });
  }
  out.sort((a, b) => a.scheduledStart + a.lateBy * 1000 - (b.scheduledStart + b.lateBy * 1000));
  // Two pairs of meetings that start recording at the same instant: lists break the tie by recording_id.
  out[100] = { ...out[99]! };
  out[150] = { ...out[149]! };
  return out;
}

/**
 * The newest meetings are still processing: no summary yet (content not ready). Like a recording
 * whose recorder has not yet looked at it, they are not shared yet: only their recorders (Mike,
 * Sam) see them, so the account admin's newest meetings, the first page anyone sees (GraphiQL's
 * first tab, a first REST call with the admin's key), all have content, while a recorder's own
 * list still shows what a meeting looks like before its content is ready.
 */
const TRANSCRIPT_ONLY = 1;
const NO_CONTENT_YET = 1;

function buildMeeting(rng: Random, index: number, slot: Slot): MeetingSeed {
  const plan = scenarios[rng.weighted(topicWeights)](rng, slot.scheduledStart);
  const recordingId = FIRST_RECORDING_ID + index;
  const recordingStart = slot.scheduledStart + slot.lateBy * 1000;
  const durationSeconds = Math.max(300, slot.scheduledMinutes * 60 - rng.int(0, 300) + rng.int(0, 59));
  const recordingEnd = recordingStart + durationSeconds * 1000;
  const adHoc = rng.chance(0.1);

  const invitees: Invitee[] = [
    { name: plan.recorder.name, email: plan.recorder.email },
    ...plan.internal.map((u) => ({ name: u.name, email: u.email })),
    ...plan.external,
  ];
  const meeting: MeetingSeed = {
    recording_id: recordingId,
    recorded_by: plan.recorder.email,
    title: adHoc ? 'Impromptu meeting' : plan.title,
    meeting_title: adHoc ? null : plan.title,
    meeting_type: plan.meetingType,
    url: `https://app.meetings.test/calls/${recordingId}`,
    share_url: `https://app.meetings.test/share/${rng.token(16)}`,
    created_at: iso(recordingEnd + rng.int(1, 5) * MINUTE),
    scheduled_start_time: iso(slot.scheduledStart),
    scheduled_end_time: iso(slot.scheduledStart + slot.scheduledMinutes * MINUTE),
    recording_start_time: iso(recordingStart),
    recording_end_time: iso(recordingEnd),
    transcript_language: 'en',
    meeting_url: rng.chance(0.85)
      ? `https://meetings.example/calls/${rng.int(100_000_000, 999_999_999)}`
      : null,
    calendar_invitees: invitees,
    sharing: plan.sharing,
  };

  const readyFrom = MEETING_COUNT - TRANSCRIPT_ONLY - NO_CONTENT_YET;
  // After the plan drew its sharing, so every other meeting stays as generated.
  if (index >= readyFrom) meeting.sharing = { users: [], teams: [], all_teams: false };
  if (index >= MEETING_COUNT - NO_CONTENT_YET) return meeting;

  const teamByEmail = new Map([plan.recorder, ...plan.internal].map((u) => [u.email, u.team]));
  const speakers: Speaker[] = [plan.recorder, ...rng.sample(invitees.slice(1), rng.int(1, 3))].map((p) => ({
    name: p.name ?? p.email ?? 'Guest',
    email: p.email,
    team: (p.email && teamByEmail.get(p.email)) ?? null,
  }));
  // Sometimes someone joins whom no invitee matches.
  if (rng.chance(0.1))
    speakers.push({ name: rng.pick(['Conference Room 2B', 'iPhone', 'Guest']), email: null, team: null });
  const content: ContentInput = {
    topic: plan.topic,
    title: meeting.title,
    company: plan.company,
    speakers,
    durationSeconds,
  };
  meeting.transcript = transcriptFor(rng, content);
  if (index >= readyFrom) return meeting;

  meeting.action_items = actionItemsFor(rng, content);
  meeting.highlights = highlightsFor(rng, content, meeting.transcript);
  meeting.default_summary = summaryFor(
    rng,
    content,
    meeting.action_items.map((a) => ({ description: a.description, assignee: a.assignee.name })),
  );
  return meeting;
}

// ---------------------------------------------------------------- the dataset

export function demoDataset(): Dataset {
  const rng = new Random(SEED);
  const meetings = slots(rng).map((slot, i) => buildMeeting(rng, i, slot));
  return {
    organisations: [
      {
        slug: ACME,
        name: 'Acme',
        domains: ['acme.test', 'acme-labs.test'],
        plan: 'team',
        created_at: day('2024-01-15'),
      },
      {
        slug: GLOBEX,
        name: 'Globex',
        domains: ['globex.test'],
        plan: 'individual',
        created_at: day('2024-05-06'),
      },
    ],
    teams: [
      { organisation: ACME, name: 'Sales', created_at: day('2024-01-20') },
      { organisation: ACME, name: 'Engineering', created_at: day('2024-01-20') },
      { organisation: ACME, name: 'Support', created_at: day('2024-02-05') },
      { organisation: ACME, name: 'Marketing', created_at: day('2024-03-11') },
    ],
    users: Object.values(people),
    api_keys: personaSpecs.map((p) => ({
      user: people[p.person].email,
      key: p.key,
      kind: p.kind,
      label: p.kind === 'connected_app' ? `${p.appName} (OAuth)` : `demo: ${p.label}`,
      app_name: p.appName ?? null,
      revoked_at: p.revoked ? day('2026-06-30') : null,
    })),
    meeting_types: [
      { organisation: ACME, name: 'Discovery Call', status: 'active', created_at: day('2024-01-25') },
      { organisation: ACME, name: 'Product Demo', status: 'active', created_at: day('2024-01-25') },
      { organisation: ACME, name: 'Sprint Review', status: 'active', created_at: day('2024-02-01') },
      { organisation: ACME, name: 'Customer Support', status: 'active', created_at: day('2024-02-20') },
      {
        organisation: ACME,
        name: 'Quarterly Business Review',
        status: 'inactive',
        created_at: day('2024-03-01'),
      },
      { organisation: GLOBEX, name: 'Advisory Session', status: 'active', created_at: day('2024-05-06') },
    ],
    crm_connections: crmConnections(),
    meetings,
  };
}
