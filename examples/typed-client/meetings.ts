/**
 * The typed client at work: pages of meetings with their summaries and action items.
 *
 *   API_KEY=mk_demo_... node --import tsx examples/typed-client/meetings.ts [BASE_URL]
 *
 * After editing a document here, `npm run examples:codegen` regenerates ./generated.
 */
import { pathToFileURL } from 'node:url';
import type { Client } from './client.js';
import { createClient } from './client.js';
import { graphql } from './generated/gql.js';
import type { MeetingsWithSummariesQuery } from './generated/graphql.js';

export const meetingsWithSummaries = graphql(`
  query MeetingsWithSummaries($first: Int!, $after: String, $filter: MeetingFilter) {
    meetings(first: $first, after: $after, filter: $filter) {
      edges {
        node {
          recordingId
          title
          recordingStartTime
          recordedBy {
            name
            email
          }
          defaultSummary {
            templateName
            markdownFormatted
          }
          actionItems {
            description
            completed
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export type MeetingWithSummary = MeetingsWithSummariesQuery['meetings']['edges'][number]['node'];

/** One page of meetings (newest first) and the cursor of the next, null on the last page. */
export async function meetingPage(
  client: Client,
  first: number,
  after: string | null = null,
): Promise<{ meetings: MeetingWithSummary[]; next: string | null }> {
  const { meetings } = await client.request(meetingsWithSummaries, { first, after });
  return {
    meetings: meetings.edges.map((e) => e.node),
    next: meetings.pageInfo.hasNextPage ? meetings.pageInfo.endCursor : null,
  };
}

// Run as a program: prints the first page.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error('set API_KEY to a key npm start printed (e.g. the account admin)');
    process.exit(2);
  }
  const client = createClient(process.argv[2] ?? 'http://127.0.0.1:4000', apiKey);
  const { meetings, next } = await meetingPage(client, 5);
  for (const m of meetings) {
    const summary = m.defaultSummary?.markdownFormatted.split('\n')[0] ?? '(no summary yet)';
    console.log(
      `${m.recordingId}  ${m.recordingStartTime}  ${m.title} (${m.recordedBy.name ?? m.recordedBy.email})`,
    );
    console.log(`    ${summary}; ${m.actionItems.length} action item(s)`);
  }
  console.log(next ? `next page: after "${next}"` : 'last page');
}
