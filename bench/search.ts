/**
 * The search scenario: GraphQL `meetings(filter: { search })` over the whole dataset as its
 * account admin, one request at a time (a person searching), each search answered `times` times
 * after a warm-up: p50 and p90 of the answer time. The phrase said once in the dataset
 * (dataset.ts, `planted`) must be found in its one meeting, at its moment.
 */
import { fetchOnce, percentile } from './load.js';

export interface SearchCase {
  name: string;
  search: string;
  orderBy: 'NEWEST' | 'RELEVANCE';
  /** Counted toward the search target; the others are shown for what they cost. */
  target: boolean;
}

export interface SearchResult extends SearchCase {
  /** Meetings on the first page (10 at most). */
  found: number;
  p50: number;
  p90: number;
  requests: number;
}

const query = `query($search: String!, $orderBy: MeetingOrder!) {
  meetings(filter: { search: $search }, orderBy: $orderBy, first: 10) {
    edges { node { recordingId title } matches(first: 3) { field snippet timestamp } }
    pageInfo { hasNextPage } } }`;

interface Answer {
  data?: {
    meetings: {
      edges: {
        node: { recordingId: number };
        matches: { field: string; snippet: string; timestamp: string | null }[];
      }[];
    };
  };
  errors?: unknown[];
}

/**
 * The target is the case: a phrase said once among 5,000 meetings. The dataset's words are
 * drawn from a hundred, so each of them is in nearly every meeting: the other cases are the worst
 * a search can be here, shown for what they cost.
 */
export function searchCases(phrase: string): SearchCase[] {
  return [
    { name: 'a phrase said once', search: `"${phrase}"`, orderBy: 'NEWEST', target: true },
    { name: 'a word in every meeting', search: 'pricing', orderBy: 'NEWEST', target: false },
    { name: 'two words in every meeting', search: 'pricing roadmap', orderBy: 'NEWEST', target: false },
    { name: 'a word in every meeting, best first', search: 'pricing', orderBy: 'RELEVANCE', target: false },
    // MongoDB checks a phrase in every document holding one of its words: with common words, all.
    { name: 'a phrase of common words', search: '"pricing contract"', orderBy: 'NEWEST', target: false },
  ];
}

export async function runSearchScenario(
  url: string,
  apiKey: string,
  expected: { phrase: string; recordingId: number; timestamp: string },
  times = 30,
): Promise<{ results: SearchResult[]; problems: string[] }> {
  const problems: string[] = [];
  const results: SearchResult[] = [];
  for (const c of searchCases(expected.phrase)) {
    const ask = async () => {
      const started = performance.now();
      const res = await fetchOnce(url, {
        method: 'POST',
        path: '/graphql',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { search: c.search, orderBy: c.orderBy } }),
      });
      const ms = performance.now() - started;
      const answer = JSON.parse(res.body.toString()) as Answer;
      if (res.status !== 200 || answer.errors || !answer.data)
        throw new Error(`search ${c.search} answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
      return { ms, edges: answer.data.meetings.edges };
    };
    const { edges } = await ask(); // warm-up, and the answer checked
    if (c.name === 'a phrase said once') {
      const at = edges[0]?.matches.find((m) => m.field === 'TRANSCRIPT')?.timestamp;
      if (
        edges.length !== 1 ||
        edges[0]!.node.recordingId !== expected.recordingId ||
        at !== expected.timestamp
      )
        problems.push(
          `search: the phrase said once was not found in recording ${expected.recordingId} at ${expected.timestamp}: ${JSON.stringify(edges).slice(0, 300)}`,
        );
    } else if (edges.length === 0) problems.push(`search: ${c.search} found nothing`);
    await ask();
    const ms: number[] = [];
    for (let i = 0; i < times; i++) ms.push((await ask()).ms);
    ms.sort((a, b) => a - b);
    results.push({
      ...c,
      found: edges.length,
      p50: percentile(ms, 50),
      p90: percentile(ms, 90),
      requests: times,
    });
  }
  return { results, problems };
}
