/**
 * The MCP door's tools. Most are a route of the REST table run with the tool's arguments as its
 * decoded input; the others run a document of their own (operations/) and answer in the same
 * public shape. Either way the document goes through RouteRunner, so visibility, rate limits, load
 * shedding and error masking are the REST door's, and so is the answer (the structured content).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import {
  type Operation,
  RestError,
  type RestResult,
  type Route,
  type RouteCall,
  type RouteRunner,
  routes,
} from '../../rest-compat/index.js';
import { serialiseJson } from '../domain/raw-json.js';
import type { RestMeetingFragment, RestUserFragment } from '../representation/fragments.generated.js';
import { includeVariables, noIncludes, restMeeting } from '../representation/meeting.js';
import * as S from '../representation/schemas.js';
import { restUser } from '../representation/user.js';

/** What a tool runs with: the shared runner, the door's own documents, and the request it serves. */
export interface ToolContext {
  runner: RouteRunner;
  operations: ReadonlyMap<string, Operation>;
  call: RouteCall;
}

export interface Tool {
  name: string;
  title: string;
  /** What an agent reads to choose the tool and its arguments. */
  description: string;
  /** The arguments, validated by the SDK before the tool runs. */
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  /** Its answer as the REST door would give it: 200 and the body, or an error status and message. */
  run(context: ToolContext, args: Record<string, unknown>): Promise<RestResult>;
  /** The readable text part of the answer; the answer as JSON when absent. */
  text?: (answer: never) => string;
}

const routeOf = (operationId: string): Route => {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return route;
};

/** A tool that is a REST route: its arguments are the route's query or path parameters. */
function routeTool(
  spec: Omit<Tool, 'run' | 'outputSchema'> & {
    route: Route;
    argumentsAre: 'query' | 'path';
    outputSchema?: z.ZodObject;
    /** Route parameters the tool does not offer, at these values. */
    fixed?: Record<string, unknown>;
  },
): Tool {
  const { route, argumentsAre, fixed, ...tool } = spec;
  return {
    ...tool,
    outputSchema: spec.outputSchema ?? (route.responses[200]!.schema as z.ZodObject),
    run: async ({ runner, call }, args) => {
      const input = { query: {}, path: {}, body: {}, [argumentsAre]: { ...fixed, ...args } };
      return (await runner.run(route, input, call)).answer;
    },
  };
}

const operationOf = (operations: ReadonlyMap<string, Operation>, name: string) => operations.get(name)!;

const paging =
  'Pages of `limit` (default 10, at most 100): pass the answer’s next_cursor as `cursor` for the next page; null means there is none.';
const notFound = 'A recording that does not exist or that you may not see is "not found".';

const listMeetings = routeOf('listMeetings');
const transcriptRoute = routeOf('getRecordingTranscript');
const summaryRoute = routeOf('getRecordingSummary');
const recordingArgument = transcriptRoute.pathParams as z.ZodObject;

const SearchMatch = z.object({
  field: z.enum(['title', 'summary', 'action_item', 'transcript']),
  snippet: z
    .string()
    .meta({ description: 'The matching title, summary line, action item or transcript sentence.' }),
  speaker: z.string().nullable().meta({ description: 'Who said it (transcript).' }),
  timestamp: z.string().nullable().meta({ description: 'Where in the recording (HH:MM:SS).' }),
});
const SearchResult = z.object({
  limit: z.int(),
  next_cursor: z.string().nullable(),
  items: z.array(z.object({ meeting: S.Meeting, matches: z.array(SearchMatch) })),
});

interface SearchData {
  meetings: {
    edges: {
      matches: { field: string; snippet: string; speaker: string | null; timestamp: string | null }[] | null;
      node: RestMeetingFragment;
    }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

type TranscriptAnswer = z.output<typeof S.TranscriptResponse>;
type SummaryAnswer = z.output<typeof S.SummaryResponse>;

export const tools: readonly Tool[] = [
  {
    name: 'get_identity',
    title: 'Who am I',
    description:
      'The person this agent acts for: name, email, and what they may see (view access: own meetings, their teams’ or all teams’) and administer.',
    inputSchema: z.object({}),
    outputSchema: S.User,
    run: async ({ runner, operations, call }) => {
      const { data } = await runner.runOperation(operationOf(operations, 'McpIdentity'), {}, call);
      return { status: 200, body: restUser(data.viewer as RestUserFragment) };
    },
  },
  routeTool({
    name: 'list_meetings',
    title: 'List meetings',
    description: `Meetings you may see, newest first, with title, time, recorder, invitees and links (no content: read it with get_meeting_summary or get_meeting_transcript by recording_id). Filters combine with AND, the values of one filter with OR. ${paging}`,
    route: listMeetings,
    inputSchema: (listMeetings.query as z.ZodObject).omit({
      include_action_items: true,
      include_crm_matches: true,
      include_highlights: true,
      include_summary: true,
      include_transcript: true,
    }),
    argumentsAre: 'query',
    // Content is read one recording at a time, as a connected app must on the REST door.
    fixed: noIncludes,
  }),
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
  ).map(([name, title, operationId, what]) => {
    const route = routeOf(operationId);
    return routeTool({
      name,
      title,
      description: `${what} ${paging}`,
      route,
      inputSchema: route.query as z.ZodObject,
      argumentsAre: 'query',
    });
  }),
  {
    name: 'get_meeting',
    title: 'Get a meeting',
    description: `One meeting by recording_id, as list_meetings shows it. ${notFound}`,
    inputSchema: recordingArgument,
    outputSchema: S.Meeting,
    run: async ({ runner, operations, call }, { recording_id }) => {
      const { data } = await runner.runOperation(
        operationOf(operations, 'McpMeeting'),
        { recordingId: recording_id, ...includeVariables(noIncludes) },
        call,
      );
      const meeting = data.meeting as RestMeetingFragment | null;
      return meeting
        ? { status: 200, body: restMeeting(meeting, noIncludes) }
        : { status: 404, body: { error: `No recording with id ${recording_id}.` } };
    },
  },
  routeTool({
    name: 'get_meeting_transcript',
    title: 'Get a meeting’s transcript',
    description: `The transcript of one recording: each line with its speaker and its moment (HH:MM:SS from the start). ${notFound}`,
    route: transcriptRoute,
    inputSchema: recordingArgument,
    outputSchema: S.TranscriptResponse,
    argumentsAre: 'path',
    text: ({ transcript }: TranscriptAnswer) =>
      transcript.map((line) => `[${line.timestamp}] ${line.speaker.display_name}: ${line.text}`).join('\n'),
  }),
  routeTool({
    name: 'get_meeting_summary',
    title: 'Get a meeting’s summary',
    description: `The summary of one recording, as Markdown (null when it has none yet). ${notFound}`,
    route: summaryRoute,
    inputSchema: recordingArgument,
    outputSchema: S.SummaryResponse,
    argumentsAre: 'path',
    text: ({ summary }: SummaryAnswer) => summary?.markdown_formatted ?? 'This recording has no summary yet.',
  }),
  {
    name: 'search_meetings',
    title: 'Search meetings',
    description: `Meetings in which every word and "quoted phrase" occurs (title, summary, action items, transcript), with the places it matched: the sentence, its speaker and its moment. Words match by stem ("priced" finds "pricing"); -word excludes. Best matches first unless order is "newest". ${paging}`,
    inputSchema: z.object({
      query: z
        .string()
        .min(1)
        .max(500)
        .meta({ description: 'Words and "quoted phrases", all of which must occur.' }),
      order: z
        .enum(['relevance', 'newest'])
        .default('relevance')
        .meta({ description: 'Best matches first (words in titles count most), or newest first.' }),
      matches: z.int().min(1).max(20).default(3).meta({ description: 'Places shown per meeting, 1 to 20.' }),
      cursor: z.string().optional().meta({ description: 'The next_cursor of the previous page.' }),
      limit: z.int().min(1).max(100).default(10).meta({ description: 'Page size, 1 to 100.' }),
    }),
    outputSchema: SearchResult,
    run: async ({ runner, operations, call }, args) => {
      const { data } = await runner.runOperation(
        operationOf(operations, 'McpSearch'),
        {
          search: args.query,
          first: args.limit,
          after: args.cursor ?? null,
          orderBy: String(args.order).toUpperCase(),
          matches: args.matches,
          ...includeVariables(noIncludes),
        },
        call,
      );
      const { edges, pageInfo } = (data as unknown as SearchData).meetings;
      return {
        status: 200,
        body: {
          limit: args.limit,
          next_cursor: pageInfo.hasNextPage ? pageInfo.endCursor : null,
          items: edges.map((edge) => ({
            meeting: restMeeting(edge.node, noIncludes),
            matches: (edge.matches ?? []).map((m) => ({ ...m, field: m.field.toLowerCase() })),
          })),
        },
      };
    },
  },
];

const failed = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: message }],
  isError: true,
});

/**
 * Runs a tool: its answer as structured content and text, or a refusal (not found, a bad cursor,
 * a rate limit) as a result with isError and the REST door's message, which says what to do.
 */
export async function runTool(
  tool: Tool,
  context: ToolContext,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    const answer = await tool.run({ ...context, call: { ...context.call, door: 'mcp' } }, args);
    // Plain values: stored content (RawJson bytes in a REST answer) is the structured content here.
    const body = JSON.parse(serialiseJson(answer.body).toString()) as Record<string, unknown>;
    if (answer.status >= 400) return failed(String(body.error));
    return {
      content: [{ type: 'text', text: tool.text ? tool.text(body as never) : JSON.stringify(body) }],
      structuredContent: body,
    };
  } catch (error) {
    if (error instanceof RestError) {
      const retry = error.headers['retry-after'];
      return failed(retry ? `${error.message} (retry in ${retry} s)` : error.message);
    }
    throw error;
  }
}
