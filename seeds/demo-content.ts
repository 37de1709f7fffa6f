/**
 * The content of a demo meeting: transcript, summary, action items and highlights, written from
 * small pools of realistic lines per topic. Only demo.ts uses it.
 */
import type { MeetingSeed } from './format.js';
import type { Random } from './random.js';

export type Topic = 'sales' | 'engineering' | 'support' | 'marketing' | 'leadership' | 'consulting';

export interface Speaker {
  name: string;
  /** The invitee email the speaker is matched to; null for a speaker no invitee matches. */
  email: string | null;
  /** For internal people: their team (action item assignees show it). */
  team: string | null;
}

export interface ContentInput {
  topic: Topic;
  title: string;
  /** Name of the meeting's company, when it has one. */
  company: string | null;
  /** The recorder first. */
  speakers: Speaker[];
  durationSeconds: number;
}

type Transcript = NonNullable<MeetingSeed['transcript']>;

const lines: Record<Topic, string[]> = {
  sales: [
    'Thanks for making the time today, {name}. Shall we start with a quick round of introductions?',
    'Sure. I run revenue operations at {company}, and we are evaluating tools for our customer calls.',
    'What prompted the search right now?',
    'Honestly, our reps spend too much time writing notes after every call.',
    'How many people would be using it in the first phase?',
    'Probably around forty seats to start, then the whole sales org next year.',
    'Let me share my screen and walk you through how a recorded call looks.',
    'The summary shows up a few minutes after the call ends, and it syncs to your CRM.',
    'That is the part I care about. Does it map attendees to existing contacts?',
    'Yes, it matches invitees by email against the contacts in your CRM.',
    'What does pricing look like for a team our size?',
    'Pricing is per seat, and annual plans come with a discount.',
    'The budget is approved for this quarter, but legal will want to review the data processing terms.',
    'We are also looking at one other vendor, mostly on price.',
    'I will send over the security questionnaire and a draft order form.',
    'Could we do a pilot with one team first?',
    'A two-week pilot with the inbound team works for us.',
    'Let us put a follow-up on the calendar for next Thursday.',
  ],
  engineering: [
    "Let's go through the board, starting with the items in review.",
    'The migration script is done; I ran it against a copy of production last night.',
    'How long did it take?',
    'About twelve minutes, most of it rebuilding the indexes.',
    'Are we blocked on anything for the release?',
    'The flaky test in the webhook suite still fails about one run in twenty.',
    "I think it's a race in the retry timer. I'll pair with {name} on it this afternoon.",
    'We should add a metric for queue depth before we turn on the new worker.',
    "Agreed. Let's keep the feature flag off until the dashboards are in place.",
    "I'd like to cut the release candidate on Wednesday.",
    'The API review flagged two endpoints that return a 500 on bad input.',
    "Those should be 400s with a readable message. I'll take them.",
    'Latency on the list endpoint went from 80 to 140 milliseconds after the last deploy.',
    "Let's timebox the spike on pagination to two days.",
    'Can we move the on-call handover to Monday morning?',
    "Let's capture that as a follow-up and move on.",
  ],
  support: [
    'Thanks for joining. I understand the exports have been failing since Tuesday.',
    'Right, every export over about a thousand rows times out.',
    'Could you share the workspace ID so I can look at the logs?',
    'I can see the errors on our side. It looks related to the change we shipped on Monday.',
    'Is there a workaround we can use in the meantime?',
    'Splitting the export by month should work until the fix is out.',
    'This is really affecting our month-end reporting at {company}.',
    "I completely understand. I'm escalating it to engineering as a priority one.",
    'Can you give us an estimate for the fix?',
    "I'll have an update for you by end of day tomorrow.",
    "Also, two of our users can't log in with single sign-on.",
    'That sounds like a certificate rotation on your identity provider. Could {name} check the metadata?',
    "I'll confirm with our IT team and get back to you.",
    'Let me summarise what we agreed so nothing gets lost.',
  ],
  marketing: [
    'The webinar landing page is live; registrations are at three hundred and ten.',
    'The email to the partner list goes out on Tuesday.',
    'Can we get two customer quotes for the case study?',
    '{company} agreed to be featured, pending their legal review.',
    'Paid social is underperforming; cost per lead doubled this month.',
    "Let's shift part of that budget to newsletter sponsorships.",
    "I'll draft the blog post announcing the integration.",
    'We need final screenshots from product by Friday.',
    'The brand refresh assets are in the shared folder.',
    "Let's review the funnel numbers at the next sync, {name}.",
  ],
  leadership: [
    "Welcome everyone, let's start with the quarterly numbers.",
    'Revenue came in four percent above plan, driven mostly by expansion.',
    'Churn is flat, but support volume went up after the pricing change.',
    'Hiring: we closed three engineering roles and one in support.',
    'The offsite is confirmed for the second week of November.',
    "Please make sure your team's goals are in the planning doc by Friday.",
    'Any questions before we move on to the roadmap?',
    'How are we thinking about headcount for next year?',
    "We'll share the draft plan with team leads next week.",
    'Thanks everyone, the recording will be shared with all teams.',
  ],
  consulting: [
    'Thanks for having me. I reviewed the process documents you sent over.',
    'The biggest gap I see is the handover between sales and onboarding.',
    'What would you change first?',
    "I'd start with a shared checklist and a single owner per account.",
    "We tried something similar last year, but it didn't stick.",
    "That usually happens when nobody measures it. Let's pick two metrics.",
    'Time to first value, and the number of onboarding calls per account.',
    "I'll put together a short proposal with a timeline.",
    'Can you also look at how we run quarterly business reviews, {name}?',
    "Sure, send me two recent examples and I'll annotate them.",
  ],
};

const openers = [
  'Hi everyone, can you hear me okay?',
  'Good morning! Give me one second to share my screen.',
  "Let's get started, I know we're tight on time.",
  'Hey {name}, thanks for joining.',
];
const fillers = [
  'Makes sense.',
  'Okay, got it.',
  'Could you say a bit more about that?',
  'Yes, exactly.',
  'Let me check and come back to you on that.',
  "That's helpful, thank you.",
  'Sorry, you cut out for a second. Could you repeat that?',
  'Good point.',
];
const closers = [
  "Great, thanks everyone. I'll send the notes around.",
  'Thanks, talk soon.',
  'Perfect. Have a good rest of your day.',
];

const keyPoints: Record<Topic, string[]> = {
  sales: [
    'Reps spend too much time on manual call notes',
    'Budget is approved for this quarter',
    'Legal needs to review the data processing terms',
    'A competing vendor is being evaluated on price',
    'Interest in CRM sync for contacts and deals',
    'A two-week pilot with the inbound team was proposed',
  ],
  engineering: [
    'Migration script validated against a production copy',
    'Flaky webhook retry test still failing intermittently',
    'Queue depth metric needed before enabling the new worker',
    'Release candidate planned for Wednesday',
    'Two endpoints return 500 on bad input',
    'List endpoint latency regressed after the last deploy',
  ],
  support: [
    'Exports over a thousand rows time out',
    'Issue traced to Monday’s release',
    'Workaround: split exports by month',
    'Escalated to engineering as priority one',
    'Single sign-on failures likely caused by a certificate rotation',
  ],
  marketing: [
    'Webinar registrations are ahead of target',
    'Partner newsletter goes out on Tuesday',
    'Case study pending customer legal review',
    'Paid social cost per lead doubled',
    'Integration launch blog post in progress',
  ],
  leadership: [
    'Revenue four percent above plan',
    'Churn flat; support volume up after the pricing change',
    'Four roles closed this quarter',
    'Offsite confirmed for November',
    'Team goals due in the planning doc by Friday',
  ],
  consulting: [
    'Handover between sales and onboarding is the main gap',
    'Proposal: shared checklist and a single owner per account',
    'Track time to first value and onboarding calls per account',
    'Quarterly business reviews to be reviewed next',
  ],
};

const actions: Record<Topic, string[]> = {
  sales: [
    'Send the security questionnaire to {company}',
    'Share a draft order form',
    'Schedule the pilot kickoff',
    'Loop in legal on the data processing terms',
    'Book the follow-up call for next Thursday',
  ],
  engineering: [
    'Fix the flaky webhook retry test',
    'Add a queue depth metric and dashboard',
    'Cut the release candidate on Wednesday',
    'Return 400 instead of 500 on bad input',
    'Investigate the list endpoint latency regression',
  ],
  support: [
    'Post an update on the export fix by end of day tomorrow',
    'Check the SSO metadata with IT',
    'Escalate the export timeout to engineering',
    'Share the month-split export workaround in writing',
  ],
  marketing: [
    'Draft the integration blog post',
    'Collect final screenshots from product',
    'Move part of the paid social budget to newsletters',
    'Follow up with {company} on the case study approval',
  ],
  leadership: ['Add team goals to the planning doc', 'Share the draft headcount plan with team leads'],
  consulting: ['Write the onboarding proposal with a timeline', 'Send two recent QBR examples'],
};

const highlightTypes: Record<Topic, string[]> = {
  sales: ['Objection', 'Pricing', 'Next steps', 'Competitor mention'],
  engineering: ['Decision', 'Risk', 'Next steps'],
  support: ['Bug report', 'Customer sentiment', 'Next steps'],
  marketing: ['Decision', 'Next steps'],
  leadership: ['Announcement', 'Question'],
  consulting: ['Recommendation', 'Next steps'],
};

const templates: Record<Topic, string> = {
  sales: 'Sales Call',
  engineering: 'Team Meeting',
  support: 'Customer Support',
  marketing: 'Team Meeting',
  leadership: 'General',
  consulting: 'General',
};

const firstName = (name: string) => name.split(' ')[0]!;

function fill(rng: Random, template: string, input: ContentInput, speaker: Speaker): string {
  const others = input.speakers.filter((s) => s !== speaker);
  return template
    .replaceAll('{company}', input.company ?? 'our team')
    .replaceAll('{name}', firstName(rng.pick(others.length > 0 ? others : input.speakers).name));
}

export function hhmmss(seconds: number): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

/** 5 to 40 lines: an opener by the recorder, the topic's lines in order with fillers between, a closer. */
export function transcriptFor(rng: Random, input: ContentInput): Transcript {
  const count = rng.int(5, 40);
  const pool = lines[input.topic];
  let next = rng.int(0, pool.length - 1);
  const step = input.durationSeconds / count;
  const entries: Transcript = [];
  let previous: Speaker | undefined;
  for (let i = 0; i < count; i++) {
    // Speakers take turns: never the same one twice in a row when there is a choice.
    const candidates =
      input.speakers.length > 1 ? input.speakers.filter((s) => s !== previous) : input.speakers;
    const speaker = i === 0 ? input.speakers[0]! : rng.pick(candidates);
    let line: string;
    if (i === 0) line = rng.pick(openers);
    else if (i === count - 1) line = rng.pick(closers);
    else if (rng.chance(0.7)) line = pool[next++ % pool.length]!;
    else line = rng.pick(fillers);
    entries.push({
      speaker: { display_name: speaker.name, matched_calendar_invitee_email: speaker.email },
      text: fill(rng, line, input, speaker),
      timestamp: hhmmss(Math.floor(i * step) + rng.int(1, 4)),
    });
    previous = speaker;
  }
  return entries;
}

export function summaryFor(
  rng: Random,
  input: ContentInput,
  items: { description: string; assignee: string | null }[],
) {
  const points = rng.sample(keyPoints[input.topic], rng.int(2, 4));
  const company = input.company ? ` with ${input.company}` : '';
  const markdown = [
    `## ${input.title}`,
    '',
    `Meeting${company} attended by ${input.speakers.map((s) => s.name).join(', ')}.`,
    '',
    '### Key points',
    ...points.map((p) => `- ${p}`),
    '',
    '### Next steps',
    ...(items.length > 0
      ? items.map((i) => `- ${i.assignee ? `**${i.assignee}**: ` : ''}${i.description}`)
      : ['- No follow-ups were agreed.']),
  ].join('\n');
  return { template_name: templates[input.topic], markdown_formatted: markdown };
}

export function actionItemsFor(rng: Random, input: ContentInput): NonNullable<MeetingSeed['action_items']> {
  const descriptions = rng.sample(actions[input.topic], rng.int(0, 3));
  return descriptions.map((template) => {
    const assignee = rng.pick(input.speakers);
    return {
      description: fill(rng, template, input, assignee),
      user_generated: rng.chance(0.2),
      completed: rng.chance(0.3),
      recording_timestamp: hhmmss(rng.int(60, Math.max(61, input.durationSeconds - 60))),
      assignee: { name: assignee.name, email: assignee.email, team: assignee.team },
    };
  });
}

/**
 * Up to three highlights on the substantive lines of the transcript. The summary is sometimes null
 * and sometimes equal to the text (the REST view then leaves `text` out).
 */
export function highlightsFor(rng: Random, input: ContentInput, transcript: Transcript) {
  const substantive = transcript.slice(1, -1).filter((e) => !fillers.includes(e.text));
  const picked = rng.sample(substantive, rng.int(0, 3));
  picked.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  return picked.map((entry) => {
    const [h, m, s] = entry.timestamp.split(':').map(Number) as [number, number, number];
    const start = h * 3600 + m * 60 + s;
    const summary = rng.weighted({ none: 2, same: 4, attributed: 4 });
    return {
      type: rng.pick(highlightTypes[input.topic]),
      summary:
        summary === 'none'
          ? null
          : summary === 'same'
            ? entry.text
            : `${entry.speaker.display_name}: ${entry.text}`,
      start_time: start,
      end_time: start + rng.int(5, 40),
      text: entry.text,
    };
  });
}
