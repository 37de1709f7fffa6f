/**
 * The OpenAPI 3.1 document of /external/v1, generated from the route table: each route's
 * parameters, body and responses are the zod declarations its requests are validated with, and
 * the named objects are the components of schemas.ts.
 */
import * as z from 'zod';
import { inputJsonSchema, type JsonSchema } from './params.js';
import type { Route } from './route.js';
import { components } from './schemas.js';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** The named response objects, as `components.schemas`. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  );
}

/** A response schema: every one is a component of schemas.ts. */
function responseSchema(schema: z.ZodType): JsonSchema {
  const id = components.get(schema)?.id;
  if (!id) throw new Error('a response schema must be registered in the components of schemas.ts');
  return ref(id);
}

const rateLimitHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

const errorResponse = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { ...rateLimitHeaders, ...extraHeaders },
  content: { 'application/json': { schema: ref('Error') } },
});

/** Error statuses every route may answer; 413 and 415 only for routes with a body. */
function commonErrors(route: Route): Record<string, unknown> {
  return {
    400: errorResponse('A parameter or the body is not valid (the message names it).'),
    401: errorResponse('No API key or token, or one that is not valid.'),
    ...(route.body
      ? {
          413: errorResponse('The body is larger than 64 KiB.'),
          415: errorResponse('The body is not application/json.'),
        }
      : {}),
    429: errorResponse('Too many requests.', { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }),
    500: errorResponse('Internal server error.'),
  };
}

function operationOf(route: Route): Record<string, unknown> {
  const parameters = [...route.pathSpecs, ...route.querySpecs].map((p) => ({
    name: p.name,
    in: p.in,
    required: p.required,
    ...(p.description ? { description: p.description } : {}),
    ...(p.kind === 'array' ? { style: 'form', explode: true } : {}),
    schema: p.schema,
  }));
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      headers: rateLimitHeaders,
      ...(spec.schema ? { content: { 'application/json': { schema: responseSchema(spec.schema) } } } : {}),
    };
  }
  for (const [status, description] of Object.entries(route.errors ?? {}))
    responses[status] = errorResponse(description);
  Object.assign(responses, commonErrors(route));
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: inputJsonSchema(route.body) } },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

export function buildOpenApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationOf(route);
  }
  paths['/openapi.json'] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      security: [],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document of /external/v1.',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Meetings external API',
      version: '1.0.0',
      description:
        'The /external/v1 REST interface to recorded meetings, teams, users and webhooks. Every request ' +
        'carries X-Api-Key (or Authorization: Bearer for OAuth connected apps). Errors are {"error": "..."}.',
    },
    servers: [{ url: '/external/v1' }],
    security: [{ apiKeyAuth: [] }, { bearerAuth: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'OAuth connected apps.' },
      },
      headers: {
        RateLimitLimit: {
          description: 'Requests allowed in the current window.',
          schema: { type: 'integer' },
        },
        RateLimitRemaining: {
          description: 'Requests left in the current window.',
          schema: { type: 'integer' },
        },
        RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      },
    },
  };
}
