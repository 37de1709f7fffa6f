/**
 * The REST door, /external/v1: routes a request by the route table, validates it, runs the
 * route's GraphQL document through the same Yoga instance as /graphql (so authentication,
 * visibility, limits, error masking, rate limits and metrics are the same), and translates the
 * result. It never reads the database itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorStatus } from '../src/domain/errors.js';
import type { DoorName } from '../src/domain/viewer.js';
import { schema } from '../src/graphql/schema/index.js';
import type { GraphQLServer } from '../src/graphql/yoga.js';
import { PrecompressedPage } from '../src/http/compression.js';
import { readBody } from '../src/http/read-body.js';
import { clientGone, sendJson } from '../src/http/respond.js';
import { type GraphQLErrorJson, NoGraphQLResult, runDocument } from '../src/http/run-document.js';
import type { Door, RequestInfo } from '../src/http/server.js';
import type { Logger } from '../src/logger.js';
import { loadOperations, type Operation, operationOf } from './documents.js';
import { buildOpenApiDocument } from './openapi.js';
import { badRequest, decodeBody, decodeParams, RestError } from './params.js';
import type { RestInput, RestResult, Route } from './route.js';
import { routes as defaultRoutes } from './routes.js';

export const REST_PREFIX = '/external/v1';
export const MAX_BODY_BYTES = 64 * 1024;

export interface RestDoorOptions {
  graphql: GraphQLServer;
  logger: Logger;
  /** The route table; the default is the whole of /external/v1. */
  routes?: readonly Route[];
  /** Runs the routes (shared with the MCP door); by default one of its own over `routes`. */
  runner?: RouteRunner;
}

function isJsonContentType(value: string | undefined): boolean {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.startsWith('application/') === true && type.endsWith('+json'));
}

const tooLarge = () =>
  new RestError(413, `The body may be at most ${MAX_BODY_BYTES / 1024} KiB.`, { connection: 'close' });

/** Whether the request comes with a body at all (an empty one counts as none). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type']))
    throw new RestError(415, 'The body must be JSON: send Content-Type: application/json.');
  const bytes = await readBody(req, MAX_BODY_BYTES, tooLarge);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('The body is not valid JSON.');
  }
}

function splitUrl(url: string): { pathname: string; search: URLSearchParams } {
  const q = url.indexOf('?');
  return {
    pathname: q < 0 ? url : url.slice(0, q),
    search: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
  };
}

/** What the door's functions share, built once by createRestDoor. */
interface RestDoorContext {
  logger: Logger;
  routes: readonly Route[];
  runner: RouteRunner;
  /** The OpenAPI document, compressed once (at start, off the event loop) with an ETag. */
  openApi: Promise<PrecompressedPage>;
}

export function createRestDoor(options: RestDoorOptions): Door {
  const routes = options.routes ?? defaultRoutes;
  const door: RestDoorContext = {
    logger: options.logger,
    routes,
    runner: options.runner ?? new RouteRunner(options.graphql, options.logger, routes),
    openApi: PrecompressedPage.create(
      JSON.stringify(buildOpenApiDocument(routes)),
      'application/json; charset=utf-8',
    ),
  };
  return { path: `${REST_PREFIX}/`, handler: (req, res, info) => handleRestRequest(door, req, res, info) };
}

/** Who a route runs for: the HTTP exchange its credentials and load-shedding share come from. */
export interface RouteCall {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  /** The door it came through, when not REST (the MCP door runs the same routes). */
  door?: DoorName;
}

/**
 * Runs a route with its decoded input: its GraphQL document through Yoga, then its REST answer.
 * The REST door decodes HTTP into that input; the MCP door decodes a tool's arguments.
 * A refusal is a RestError (a GraphQL error's status, or a logged 500).
 */
export class RouteRunner {
  /** Each route's GraphQL documents by name, parsed and validated at start. */
  private readonly operationsByRoute: ReadonlyMap<Route, ReadonlyMap<string, Operation>>;

  constructor(
    private readonly graphql: GraphQLServer,
    private readonly logger: Logger,
    routes: readonly Route[] = defaultRoutes,
  ) {
    // Fail fast: every document parses and validates, and every route's documents exist.
    const operations = loadOperations(schema);
    this.operationsByRoute = new Map(
      routes.map((route) => [
        route,
        new Map(route.operations.map((name) => [name, operationOf(operations, name)] as const)),
      ]),
    );
  }

  async run(
    route: Route,
    input: RestInput<unknown, unknown, unknown>,
    call: RouteCall,
  ): Promise<{ answer: RestResult; headers: Record<string, string> }> {
    const graphqlCall = route.graphql(input);
    const operation = this.operationsByRoute.get(route)?.get(graphqlCall.operation);
    if (!operation)
      throw new Error(`${route.operationId} ran ${graphqlCall.operation}, which it does not declare`);
    const { data, headers } = await this.runOperation(operation, graphqlCall.variables, call);
    return { answer: route.respond(data, input), headers };
  }

  /** Runs one document (a route's, or another door's own): its data, or the RestError of its first error. */
  async runOperation(
    operation: Operation,
    variables: Record<string, unknown>,
    call: RouteCall,
  ): Promise<{ data: Record<string, unknown>; headers: Record<string, string> }> {
    let ran: Awaited<ReturnType<typeof runDocument>>;
    try {
      ran = await runDocument(this.graphql, operation, variables, call);
    } catch (error) {
      if (!(error instanceof NoGraphQLResult)) throw error;
      this.logger.error({ err: error }, 'GraphQL answered a route without JSON');
      throw new RestError(500, 'Internal server error');
    }
    const { result, headers } = ran;
    const firstError = result.errors?.[0];
    if (firstError) throw restErrorOf(this.logger, firstError, headers);
    if (!result.data) throw restErrorOf(this.logger, { message: 'GraphQL returned no data' }, headers);
    return { data: result.data, headers };
  }
}

/** The REST error for a GraphQL error: its code's status, or a logged 500 for anything unexpected. */
function restErrorOf(logger: Logger, error: GraphQLErrorJson, headers: Record<string, string>): RestError {
  const code = error.extensions?.code;
  if (code && code in errorStatus)
    return new RestError(errorStatus[code as keyof typeof errorStatus], error.message, headers);
  // A refusal of the request itself (a limit, say) keeps its 4xx: the caller can act on it.
  const status = error.extensions?.http?.status;
  if (status !== undefined && status >= 400 && status < 500)
    return new RestError(status, error.message, headers);
  logger.warn({ graphqlError: error }, 'REST request failed in GraphQL');
  return new RestError(500, 'Internal server error', headers);
}

/** Decodes the request by the route's declarations, runs its document and writes the REST answer. */
async function serveRoute(
  door: RestDoorContext,
  route: Route,
  match: RegExpExecArray,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
) {
  const { search } = splitUrl(req.url ?? '/');
  const segments = new Map<string, string>();
  route.pathNames.forEach((name, i) => {
    try {
      segments.set(name, decodeURIComponent(match[i + 1]!));
    } catch {
      throw badRequest(`Invalid path parameter "${name}": bad percent-encoding.`);
    }
  });
  const input: RestInput<unknown, unknown, unknown> = {
    path: decodeParams(route.pathParams, route.pathSpecs, (name) => {
      const value = segments.get(name);
      return value === undefined ? [] : [value];
    }),
    query: decodeParams(route.query, route.querySpecs, (name) => search.getAll(name)),
    body: route.body
      ? decodeBody(route.body, route.bodyOptional && !hasBody(req) ? {} : await readJsonBody(req))
      : {},
  };
  const { answer, headers } = await door.runner.run(route, input, { req, res, info });
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
  } else {
    await sendJson(res, answer.status, answer.body, headers);
  }
}

/** The door's entry point: /openapi.json, 404 and 405 by the route table, errors as `{"error": ...}`. */
async function handleRestRequest(
  door: RestDoorContext,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
): Promise<void> {
  const method = req.method ?? 'GET';
  const { pathname } = splitUrl(req.url ?? '/');
  const path = pathname.slice(REST_PREFIX.length);
  try {
    if (path === '/openapi.json') {
      info.route = `${REST_PREFIX}/openapi.json`;
      if (method !== 'GET') throw new RestError(405, `Use GET for ${pathname}.`, { allow: 'GET' });
      (await door.openApi).send(req, res);
      return;
    }
    const matching = door.routes.flatMap((route) => {
      const match = route.pattern.exec(path);
      return match ? [{ route, match }] : [];
    });
    if (matching.length === 0)
      throw new RestError(
        404,
        `No such path: ${pathname}. The endpoints are listed in ${REST_PREFIX}/openapi.json.`,
      );
    const found = matching.find((m) => m.route.method === method);
    if (!found) {
      info.route = `${REST_PREFIX}${matching[0]!.route.path}`;
      const allow = matching.map((m) => m.route.method).join(', ');
      throw new RestError(405, `Method ${method} is not allowed on ${pathname}; use ${allow}.`, { allow });
    }
    info.route = `${REST_PREFIX}${found.route.path}`;
    await serveRoute(door, found.route, found.match, req, res, info);
  } catch (error) {
    if (clientGone(req)) {
      door.logger.debug({ error: String(error) }, 'the client closed the connection');
      return;
    }
    if (res.headersSent) {
      door.logger.error({ err: error }, 'REST answer failed after its headers were sent');
      res.destroy();
      return;
    }
    if (error instanceof RestError) {
      await sendJson(res, error.status, { error: error.message }, error.headers);
      return;
    }
    door.logger.error({ err: error }, 'unexpected error in the REST door');
    await sendJson(res, 500, { error: 'Internal server error' });
  }
}
