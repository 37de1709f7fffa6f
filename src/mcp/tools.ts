/**
 * The MCP door's tools. Each is a route of the REST table run with the tool's arguments as its
 * decoded input (RouteRunner): the same GraphQL document, visibility, rate limits, load shedding
 * and error masking as the REST door, and the same answer, which is the tool's structured content.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { RestError, type Route, type RouteCall, type RouteRunner, routes } from '../../rest-compat/index.js';
import { serialiseJson } from '../domain/raw-json.js';
import * as S from '../representation/schemas.js';

export interface Tool {
  name: string;
  title: string;
  /** What an agent reads to choose the tool and its arguments. */
  description: string;
  route: Route;
  /** The arguments, validated by the SDK before the tool runs; their output is the route's input. */
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  /** Where the arguments go in the route's input. */
  argumentsAre: 'query' | 'path';
  /** Route parameters the tool does not offer, at these values. */
  fixed?: Record<string, unknown>;
  /** The readable text part of the answer; the answer as JSON when absent. */
  text?: (answer: never) => string;
}

const routeOf = (operationId: string): Route => {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return route;
};

const listOutput = (route: Route) => route.responses[200]!.schema as z.ZodObject;

const listMeetings = routeOf('listMeetings');
const transcriptRoute = routeOf('getRecordingTranscript');
const summaryRoute = routeOf('getRecordingSummary');

const paging =
  'Pages of `limit` (default 10, at most 100), newest first: pass the answer’s next_cursor as `cursor` for the next page; null means there is none.';

type TranscriptAnswer = z.output<typeof S.TranscriptResponse>;
type SummaryAnswer = z.output<typeof S.SummaryResponse>;

export const tools: readonly Tool[] = [
  {
    name: 'list_meetings',
    title: 'List meetings',
    description: `Meetings you may see, with their title, time, recorder, invitees and share link (no content: read it with get_meeting_summary or get_meeting_transcript by recording_id). Filters combine with AND, the values of one filter with OR. ${paging}`,
    route: listMeetings,
    inputSchema: (listMeetings.query as z.ZodObject).omit({
      include_action_items: true,
      include_crm_matches: true,
      include_highlights: true,
      include_summary: true,
      include_transcript: true,
    }),
    outputSchema: listOutput(listMeetings),
    argumentsAre: 'query',
    // Content is read one recording at a time, as a connected app must on the REST door.
    fixed: {
      include_action_items: false,
      include_crm_matches: false,
      include_highlights: false,
      include_summary: false,
      include_transcript: false,
    },
  },
  ...(
    [
      ['list_teams', 'List teams', 'listTeams', 'Your organisation’s teams, by name.'],
      [
        'list_team_members',
        'List team members',
        'listTeamMembers',
        'Active members of your organisation’s teams (or of one team), by email.',
      ],
      [
        'list_meeting_types',
        'List meeting types',
        'listMeetingTypes',
        'Your organisation’s meeting types (the values of list_meetings’ meeting_type).',
      ],
    ] as const
  ).map(([name, title, operationId, what]): Tool => {
    const route = routeOf(operationId);
    return {
      name,
      title,
      description: `${what} ${paging}`,
      route,
      inputSchema: route.query as z.ZodObject,
      outputSchema: listOutput(route),
      argumentsAre: 'query',
    };
  }),
  {
    name: 'get_meeting_transcript',
    title: 'Get a meeting’s transcript',
    description:
      'The transcript of one recording: each line with its speaker and its moment (hh:mm:ss from the start). A recording that does not exist or that you may not see is "not found".',
    route: transcriptRoute,
    inputSchema: transcriptRoute.pathParams as z.ZodObject,
    outputSchema: S.TranscriptResponse,
    argumentsAre: 'path',
    text: ({ transcript }: TranscriptAnswer) =>
      transcript.map((line) => `[${line.timestamp}] ${line.speaker.display_name}: ${line.text}`).join('\n'),
  },
  {
    name: 'get_meeting_summary',
    title: 'Get a meeting’s summary',
    description:
      'The summary of one recording, as Markdown (null when it has none yet). A recording that does not exist or that you may not see is "not found".',
    route: summaryRoute,
    inputSchema: summaryRoute.pathParams as z.ZodObject,
    outputSchema: S.SummaryResponse,
    argumentsAre: 'path',
    text: ({ summary }: SummaryAnswer) => summary?.markdown_formatted ?? 'This recording has no summary yet.',
  },
];

const failed = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: message }],
  isError: true,
});

/**
 * Runs a tool for the request `call`: its route's answer as structured content and text, or a
 * refusal (not found, a bad cursor, a rate limit) as a result with isError and the REST door's
 * message, which says what to do.
 */
export async function runTool(
  runner: RouteRunner,
  tool: Tool,
  args: Record<string, unknown>,
  call: RouteCall,
): Promise<CallToolResult> {
  const input = { query: {}, path: {}, body: {}, [tool.argumentsAre]: { ...tool.fixed, ...args } };
  try {
    const { answer } = await runner.run(tool.route, input, { ...call, door: 'mcp' });
    // Plain values: stored content (RawJson bytes in a REST answer) is the structured content here.
    const body = JSON.parse(serialiseJson(answer.body).toString()) as Record<string, unknown>;
    if (answer.status >= 400) return failed(String(body.error));
    return {
      content: [{ type: 'text', text: tool.text ? tool.text(body as never) : JSON.stringify(body, null, 2) }],
      structuredContent: body,
    };
  } catch (error) {
    if (error instanceof RestError) {
      const retry = error.headers?.['retry-after'];
      return failed(retry ? `${error.message} (retry in ${retry} s)` : error.message);
    }
    throw error;
  }
}
