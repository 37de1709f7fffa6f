/**
 * A door that speaks another protocol (REST, MCP) runs its GraphQL documents through the same Yoga
 * instance as /graphql, in-process, as if they had been posted there: authentication, visibility,
 * limits, load shedding, error masking, rate limits and metrics are decided in one place.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DoorName } from '../domain/viewer.js';
import type { GraphQLServer } from '../graphql/yoga.js';
import type { RequestInfo } from './server.js';

export interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; http?: { status?: number } };
}

export interface GraphQLResult {
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorJson[];
}

/** Headers of the GraphQL answer that the other door's answer carries too. */
const forwardedHeaders = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'];

function credentialHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['x-api-key', 'authorization']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value) && value[0] !== undefined) headers[name] = value[0];
  }
  return headers;
}

/** Raised when Yoga answers without a result (never expected): the door answers its 500. */
export class NoGraphQLResult extends Error {}

export async function runDocument(
  graphql: GraphQLServer,
  document: { source: string; operationName: string },
  variables: Record<string, unknown>,
  call: { req: IncomingMessage; res: ServerResponse; info: RequestInfo; door?: DoorName },
): Promise<{ result: GraphQLResult; headers: Record<string, string> }> {
  const { req, res, info } = call;
  let handedOver: GraphQLResult | undefined;
  const response = await graphql.fetch(
    'http://internal/graphql',
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        'x-request-id': info.requestId,
        ...credentialHeaders(req),
      },
      body: JSON.stringify({ query: document.source, variables, operationName: document.operationName }),
    },
    {
      requestId: info.requestId,
      // What /graphql's node adapter would give: load shedding holds its share until `res` closes.
      req,
      res,
      door: call.door,
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
    throw new NoGraphQLResult(`GraphQL answered ${response.status} without JSON: ${text.slice(0, 500)}`);
  }
}
