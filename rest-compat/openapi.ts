/**
 * The OpenAPI 3.1 document of /external/v1, generated from the route table: each route's
 * parameters, body and responses are the zod declarations its requests are validated with, with
 * the route's examples; the named objects are the components of schemas.ts, and what the service
 * POSTs to other URLs (the webhook event, deliveries) comes from openapi-webhooks.ts.
 */

import * as z from 'zod';
import { missingCredentialMessage, refusedCredentialMessage } from '../src/domain/viewer.js';
import { OAUTH_PATH } from '../src/oauth/endpoints.js';
import { components } from '../src/representation/schemas.js';
import * as E from './examples.js';
import { callbackOf, webhookHeaderParameters, webhooks } from './openapi-webhooks.js';
import { inputJsonSchema, type JsonSchema, namedFormatsOnly } from './params.js';
import type { Examples, Route, Tag } from './route.js';

/** The groups of the reference, in the order a reader meets them. */
const tags: Record<Tag | 'Reference', string> = {
  Meetings:
    'Recorded meetings you may see, with their transcript, summary, action items, highlights and CRM ' +
    'matches on request, and the meeting types to filter them by.',
  Recordings: 'The transcript or the summary of one recording, answered at once or POSTed to a URL you give.',
  Teams: "Your organisation's teams and their active members.",
  Users: 'Every user of the account with their permissions; account admins only.',
  Webhooks:
    'Webhooks POST each new meeting to your URL once its content is ready, signed with the secret ' +
    'shown when you create one (see the newMeetingContentReady webhook).',
  Reference: 'This document.',
};

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** The named response objects, as `components.schemas`. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
    override: namedFormatsOnly,
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

const retryAfter = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

/** What every route may answer with these statuses, unless the route has its own examples. */
const sharedErrorExamples: Record<number, Examples> = {
  401: {
    missing: E.error('No credential', missingCredentialMessage),
    invalid: E.error(
      'Credential not valid',
      refusedCredentialMessage,
      'Also for a revoked key and for the key of a deactivated user.',
    ),
  },
  413: { tooLarge: E.error('Body too large', 'The body may be at most 64 KiB.') },
  415: { notJson: E.error('Not JSON', 'The body must be JSON: send Content-Type: application/json.') },
  429: { general: E.generalRateLimited },
  500: { internal: E.error('A bug on our side', 'Internal server error') },
  503: {
    unavailable: E.error('Database unavailable', 'The service is temporarily unavailable; retry later.'),
  },
};

const errorResponse = (
  description: string,
  examples: Examples | undefined,
  extraHeaders: Record<string, unknown> = {},
) => ({
  description,
  headers: { ...rateLimitHeaders, ...extraHeaders },
  content: { 'application/json': { schema: ref('Error'), ...(examples ? { examples } : {}) } },
});

/** Error statuses every route may answer; 413 and 415 only for routes with a body. */
function commonErrors(
  route: Route,
  examples: (status: number) => Examples | undefined,
): Record<string, unknown> {
  return {
    400: errorResponse('A parameter or the body is not valid (the message names it).', examples(400)),
    401: errorResponse('No API key or token, or one that is not valid.', examples(401)),
    ...(route.body
      ? {
          413: errorResponse('The body is larger than 64 KiB.', examples(413)),
          415: errorResponse('The body is not application/json.', examples(415)),
        }
      : {}),
    429: errorResponse('Too many requests: wait Retry-After seconds.', examples(429), retryAfter),
    500: errorResponse('Internal server error (logged with the X-Request-Id of the answer).', examples(500)),
    503: errorResponse(
      'Busy, or the database does not answer: retry after Retry-After seconds.',
      examples(503),
      retryAfter,
    ),
  };
}

/** An example value as a reader would type it: an array's items one by one. */
const exampleText = (value: unknown): string =>
  (Array.isArray(value) ? value : [value]).map((v) => `\`${String(v)}\``).join(', ');

/**
 * A parameter's example. A reference's "Try it out" (Swagger UI) fills each parameter with its
 * `example` and sends it, so only a required parameter, which the caller must give anyway, carries
 * one there. An optional one shows its example in its description: filled in, the examples of one
 * route add up to a request nobody meant (every filter at once, and a cursor made for other filters,
 * which the service refuses), where left empty "Execute" sends just the defaults and works.
 */
function parameterExample(
  p: { required: boolean; description?: string },
  value: unknown,
): { description?: string; example?: unknown } {
  if (value === undefined) return p.description ? { description: p.description } : {};
  if (p.required) return { ...(p.description ? { description: p.description } : {}), example: value };
  const example = `Example: ${exampleText(value)}.`;
  return { description: p.description ? `${p.description} ${example}` : example };
}

function operationOf(route: Route): Record<string, unknown> {
  const examples = (status: number): Examples | undefined =>
    route.examples?.responses[status] ?? sharedErrorExamples[status];
  const parameterExamples: Record<string, unknown> = route.examples?.parameters ?? {};
  const parameters = [...route.pathSpecs, ...route.querySpecs].map((p) => ({
    name: p.name,
    in: p.in,
    required: p.required,
    ...parameterExample(p, parameterExamples[p.key]),
    ...(p.kind === 'array' ? { style: 'form', explode: true } : {}),
    schema: p.schema,
  }));
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const content = spec.schema && {
      'application/json': { schema: responseSchema(spec.schema), examples: examples(Number(status)) },
    };
    responses[status] = {
      description: spec.description,
      headers: rateLimitHeaders,
      ...(content ? { content } : {}),
    };
  }
  Object.assign(responses, commonErrors(route, examples));
  for (const [status, description] of Object.entries(route.errors ?? {}))
    responses[status] = errorResponse(description, examples(Number(status)));
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.tag ? { tags: [route.tag] } : {}),
    ...(route.description ? { description: route.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: inputJsonSchema(route.body), examples: route.examples?.body },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
    ...(route.callback
      ? { callbacks: callbackOf(route.callback, responseSchema(route.callback.schema)) }
      : {}),
  };
}

/** The security scheme of `X-Api-Key`: what the REST reference authorizes with the demo key. */
export const API_KEY_SCHEME = 'apiKeyAuth';

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
      description: 'The OpenAPI 3.1 document of /external/v1, served without a key.',
      tags: ['Reference'],
      security: [],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document of /external/v1.',
          content: {
            'application/json': {
              schema: { type: 'object' },
              examples: { document: { summary: 'The start of it', value: { openapi: '3.1.0' } } },
            },
          },
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
        'The /external/v1 REST interface to recorded meetings, teams, users and webhooks, compatible with ' +
        'the public API and its official SDKs.\n\n' +
        '- **Authentication**: every request carries `X-Api-Key` (or `Authorization: Bearer` for OAuth ' +
        'connected apps), and sees what that user may see.\n' +
        '- **Lists** answer `{limit, next_cursor, items}`, newest first; pass `next_cursor` back as `cursor` ' +
        'for the next page (null on the last one). `limit` is 1 to 100, 10 by default.\n' +
        '- **Errors** are `{"error": "..."}` with a message a person can act on.\n' +
        '- **Rate limits**: 60 requests a minute per key or token, and 30 a minute for transcripts and ' +
        'summaries; every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, ' +
        'a 429 or 503 `Retry-After`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/external/v1' }],
    security: [{ [API_KEY_SCHEME]: [] }, { bearerAuth: [] }, { oauth2: ['public_api'] }],
    tags: Object.entries(tags).map(([name, description]) => ({ name, description })),
    paths,
    webhooks,
    components: {
      schemas: componentSchemas(),
      parameters: webhookHeaderParameters,
      securitySchemes: {
        [API_KEY_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description:
            "A user's API key. Requests act as that user: they see the meetings the user may see, and " +
            'GET /users answers only for account admins (403 otherwise). A missing or unknown key, a revoked ' +
            'one or one of a deactivated user gets 401.',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The access token of an OAuth connected app, as `Authorization: Bearer <token>`. It acts as the ' +
            'user who connected the app, with one restriction: GET /meetings refuses include_summary=true ' +
            'and include_transcript=true (400); read those one recording at a time with ' +
            'GET /recordings/{recording_id}/summary and /transcript.',
        },
        oauth2: {
          type: 'oauth2',
          description:
            'How a connected app gets its bearer token: an account admin registers it (GraphQL `registerApp`); ' +
            'a user signs in and allows it at the authorization endpoint; the app exchanges the code (with ' +
            'PKCE S256 for a public app) and refreshes it, each refresh token once. Metadata (RFC 8414) at ' +
            '/.well-known/oauth-authorization-server; revocation (RFC 7009) at /external/v1/oauth2/revoke.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${OAUTH_PATH}/authorize`,
              tokenUrl: `${OAUTH_PATH}/token`,
              refreshUrl: `${OAUTH_PATH}/token`,
              scopes: {
                public_api:
                  'act for the user as a connected app: what the user may read and do through this API',
              },
            },
          },
        },
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
