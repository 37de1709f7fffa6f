/**
 * The REST door, /external/v1: routes a request by the route table, validates it, runs the
 * route's GraphQL document through the same Yoga instance as /graphql (so authentication,
 * visibility, limits, error masking, rate limits and metrics are the same), and translates the
 * result. It never reads the database itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorStatus } from '../src/domain/errors.js';
import { schema } from '../src/graphql/schema/index.js';
import type { GraphQLServer } from '../src/graphql/yoga.js';
import { PrecompressedPage } from '../src/http/compression.js';
import { readBody } from '../src/http/read-body.js';
import { clientGone, sendJson } from '../src/http/respond.js';
import type { Door, RequestInfo } from '../src/http/server.js';
import type { Logger } from '../src/logger.js';
import { loadOperations, type Operation, operationOf } from './documents.js';
import { buildOpenApiDocument } from './openapi.js';
import { badRequest, decodeBody, decodeParams, RestError } from './params.js';
import type { RestInput, Route } from './route.js';
import { routes as defaultRoutes } from './routes.js';

export const REST_PREFIX = '/external/v1';
export const MAX_BODY_BYTES = 64 * 1024;

/** Headers of the GraphQL answer that the REST answer carries too. */
const forwardedHeaders = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'];

export interface RestDoorOptions {
  graphql: GraphQLServer;
  logger: Logger;
  /** The route table; the default is the whole of /external/v1. */
  routes?: readonly Route[];
}

interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; http?: { status?: number } };
}

interface GraphQLResult {
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorJson[];
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

function credentialHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['x-api-key', 'authorization']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value) && value[0] !== undefined) headers[name] = value[0];
  }
  return headers;
}

/** What the door's functions share, built once by createRestDoor. */
interface RestDoorContext {
  graphql: GraphQLServer;
  logger: Logger;
  routes: readonly Route[];
  /** Each route's GraphQL documents by name, parsed and validated at start. */
  operationsByRoute: ReadonlyMap<Route, ReadonlyMap<string, Operation>>;
  /** The OpenAPI document, compressed once (at start, off the event loop) with an ETag. */
  openApi: Promise<PrecompressedPage>;
}

export function createRestDoor(options: RestDoorOptions): Door {
  const routes = options.routes ?? defaultRoutes;
  // Fail fast: every document parses and validates, and every route's documents exist.
  const operations = loadOperations(schema);
  const door: RestDoorContext = {
    graphql: options.graphql,
    logger: options.logger,
    routes,
    operationsByRoute: new Map(
      routes.map((route) => [
        route,
        new Map(route.operations.map((name) => [name, operationOf(operations, name)] as const)),
      ]),
    ),
    openApi: PrecompressedPage.create(
      JSON.stringify(buildOpenApiDocument(routes)),
      'application/json; charset=utf-8',
    ),
  };
  return { path: `${REST_PREFIX}/`, handler: (req, res, info) => handleRestRequest(door, req, res, info) };
}

/** Runs a route's GraphQL document through Yoga, as if it had been posted to /graphql. */
async function runOperation(
  door: RestDoorContext,
  operation: Operation,
  variables: Record<string, unknown>,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
): Promise<{ result: GraphQLResult; headers: Record<string, string> }> {
  let handedOver: GraphQLResult | undefined;
  const response = await door.graphql.fetch(
    'http://internal/graphql',
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        'x-request-id': info.requestId,
        ...credentialHeaders(req),
      },
      body: JSON.stringify({ query: operation.source, variables, operationName: operation.operationName }),
    },
    {
      requestId: info.requestId,
      // What /graphql's node adapter would give: load shedding holds its share until `res` closes.
      req,
      res,
      handOver: (result) => {
        handedOver = result as GraphQLResult;
      },
    },
  );
  const headers: Record<string, string> = {};
  for (const name of forwardedHeaders) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const text = await response.text();
  if (handedOver) return { result: handedOver, headers };
  // Refused before execution (e.g. by a limit): Yoga serialised the errors itself.
  try {
    return { result: JSON.parse(text) as GraphQLResult, headers };
  } catch {
    door.logger.error(
      { status: response.status, body: text.slice(0, 500) },
      'GraphQL answered the REST door without JSON',
    );
    throw new RestError(500, 'Internal server error', headers);
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
  const call = route.graphql(input);
  const operation = door.operationsByRoute.get(route)?.get(call.operation);
  if (!operation) throw new Error(`${route.operationId} ran ${call.operation}, which it does not declare`);
  const { result, headers } = await runOperation(door, operation, call.variables, req, res, info);
  const firstError = result.errors?.[0];
  if (firstError) throw restErrorOf(door.logger, firstError, headers);
  if (!result.data) throw restErrorOf(door.logger, { message: 'GraphQL returned no data' }, headers);
  const answer = route.respond(result.data, input);
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
