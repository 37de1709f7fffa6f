/**
 * The MCP door, /mcp: the Model Context Protocol over Streamable HTTP (the official SDK's
 * web-standard handler, stateless: each request gets a server of its own), on the service's own
 * node:http server. It is an OAuth protected resource (RFC 9728): a request without a credential
 * is answered 401 with where to find the authorization server; a connected app's token must have
 * been issued for this door (RFC 8707), an API key works too. Its tools are REST routes (tools.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { createMcpHandler, McpServer, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { loadOperations, type RouteCall, type RouteRunner } from '../../rest-compat/index.js';
import { isDatabaseUnavailable } from '../db/outage.js';
import type { CredentialCache } from '../domain/credential-cache.js';
import { type DomainError, errorStatus, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import { opensDoor, presentedCredential, wrongDoorMessage } from '../domain/viewer.js';
import type { AuthThrottle } from '../graphql/auth-throttle.js';
import { domainErrorOf } from '../graphql/errors.js';
import { schema } from '../graphql/schema/index.js';
import { readBody } from '../http/read-body.js';
import { sendJson } from '../http/respond.js';
import type { Door, RequestInfo } from '../http/server.js';
import type { Logger } from '../logger.js';
import { SCOPE } from '../oauth/endpoints.js';
import { MCP_PATH, MCP_RESOURCE_METADATA_PATH, PROTECTED_RESOURCE_PATH } from './endpoints.js';
import { runTool, tools } from './tools.js';

/** A JSON-RPC request or a batch of them: tool arguments are small. */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

export interface McpDoorOptions {
  runner: RouteRunner;
  credentials: CredentialCache;
  authThrottle: AuthThrottle;
  logger: Logger;
  publicUrl: () => string;
  version: string;
  /** Browser origins besides the service's own that may call the door (CORS_ORIGINS). */
  corsOrigins: readonly string[];
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const headerOf = (req: IncomingMessage) => ({
  get: (name: string) => {
    const value = req.headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? null;
  },
});

export function mcpDoors(options: McpDoorOptions): Door[] {
  const { runner, credentials, authThrottle, logger, publicUrl } = options;
  // The door's own documents, checked against the schema at start as the REST door's are.
  const operations = loadOperations(schema, new URL('./operations/', import.meta.url));
  const resourceMetadataUrl = () => `${publicUrl()}${MCP_RESOURCE_METADATA_PATH}`;
  // What a 401 says (RFC 6750 §3, RFC 9728 §5.1): where to learn how to get a token.
  const challenge = (error?: string, description?: string) => ({
    'www-authenticate': [
      'Bearer',
      error ? ` error="${error}", error_description="${description?.replaceAll('"', "'")}",` : '',
      ` resource_metadata="${resourceMetadataUrl()}", scope="${SCOPE}"`,
    ].join(''),
  });

  /** Each request's own server: its tools run for that request's credential. */
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const call = authInfo?.extra?.call as RouteCall;
      const server = new McpServer(
        { name: 'meetings', title: 'Meetings', version: options.version },
        {
          instructions:
            'Recorded meetings the signed-in person may see: list and filter them, then read a recording’s summary or transcript by its recording_id.',
        },
      );
      for (const tool of tools)
        server.registerTool(
          tool.name,
          {
            title: tool.title,
            description: tool.description,
            inputSchema: convertedOnce(tool.inputSchema),
            outputSchema: convertedOnce(tool.outputSchema),
            annotations: { readOnlyHint: true, openWorldHint: false },
          },
          (args: Record<string, unknown>) => runTool(tool, { runner, operations, call }, args),
        );
      return server;
    },
    {
      legacy: 'stateless',
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      onerror: (error) => logger.debug({ err: error }, 'mcp request refused'),
    },
  );

  /** Who may come in: a credential this door accepts, recognised as the other doors recognise it. */
  async function admit(req: IncomingMessage): Promise<{ credentialId: string; via: string }> {
    let presented: ReturnType<typeof presentedCredential>;
    try {
      presented = presentedCredential(headerOf(req));
    } catch (error) {
      throw new Refusal(
        401,
        (error as Error).message,
        challenge('invalid_request', (error as Error).message),
      );
    }
    if (!presented)
      throw new Refusal(
        401,
        `Sign in first: this door takes an OAuth token for ${publicUrl()}${MCP_PATH} (see ${resourceMetadataUrl()}), or an API key in X-Api-Key.`,
        challenge(),
      );
    let caller: Awaited<ReturnType<CredentialCache['recognise']>>;
    try {
      caller = await authThrottle.guard(req.socket.remoteAddress ?? 'unknown', () =>
        credentials.recognise(presented),
      );
    } catch (error) {
      const domain = domainErrorOf(error);
      if (domain?.code === 'UNAUTHENTICATED')
        throw new Refusal(401, domain.message, challenge('invalid_token', domain.message));
      if (domain) throw refusalOf(domain);
      // Recognising a credential the cache does not hold reads the database: down, as on any door.
      if (isDatabaseUnavailable(error))
        throw new Refusal(503, 'The database is unavailable: retry shortly.', {
          'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
        });
      throw error;
    }
    if (!('viewer' in caller)) throw new Refusal(403, 'The ingestion service’s token reads nothing.');
    if (!opensDoor(caller.viewer, 'mcp'))
      throw new Refusal(401, wrongDoorMessage('mcp'), challenge('invalid_token', wrongDoorMessage('mcp')));
    return { credentialId: caller.viewer.credentialId.toHexString(), via: caller.viewer.via };
  }

  /**
   * What a browser may read of an answer to a page of `origin`: the service's own pages, and the
   * origins of CORS_ORIGINS (a browser-based MCP client). Any other origin is refused: the MCP
   * transport's guard against DNS rebinding, where a page of another site calls a local server.
   */
  function corsHeadersFor(origin: string | undefined): Record<string, string> {
    if (origin === undefined) return {};
    if (origin !== new URL(publicUrl()).origin && !options.corsOrigins.includes(origin))
      throw new Refusal(403, `Requests from ${origin} are not accepted.`);
    return {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'www-authenticate, mcp-session-id, mcp-protocol-version, retry-after',
      vary: 'origin',
    };
  }

  async function serve(req: IncomingMessage, res: ServerResponse, info: RequestInfo): Promise<void> {
    let cors: Record<string, string> = {};
    try {
      cors = corsHeadersFor(req.headers.origin);
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          ...cors,
          'access-control-allow-methods': 'POST, GET, DELETE',
          'access-control-allow-headers':
            'content-type, authorization, x-api-key, mcp-protocol-version, mcp-session-id, last-event-id',
          'access-control-max-age': '600',
        });
        res.end();
        return;
      }
      const admitted = await admit(req);
      const method = req.method ?? 'GET';
      const body =
        method === 'POST'
          ? await readBody(
              req,
              MAX_MCP_BODY_BYTES,
              () => new Refusal(413, `The body may be at most ${MAX_MCP_BODY_BYTES / 1024} KiB.`),
            )
          : undefined;
      const aborted = new AbortController();
      res.on('close', () => aborted.abort());
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const request = new Request(`${publicUrl()}${MCP_PATH}`, {
        method,
        headers,
        body: body && new Uint8Array(body),
        signal: aborted.signal,
      });
      const response = await handler.fetch(request, {
        authInfo: {
          token: admitted.credentialId, // not the secret: the tools run with the request's own headers
          clientId: admitted.via, // the SDK's field; our tools read the request's own credential
          scopes: [SCOPE],
          extra: { call: { req, res, info } satisfies RouteCall },
        },
      });
      res.writeHead(response.status, { ...Object.fromEntries(response.headers), ...cors });
      if (response.body) await streamTo(Readable.fromWeb(response.body as never), res);
      else res.end();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      await sendJson(res, error.status, { error: error.message }, { ...error.headers, ...cors });
    }
  }

  const metadata = (_req: IncomingMessage, res: ServerResponse) =>
    sendJson(
      res,
      200,
      {
        resource: `${publicUrl()}${MCP_PATH}`,
        authorization_servers: [publicUrl()],
        scopes_supported: [SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'Meetings (MCP)',
      },
      // Public, and read by browser-based clients before they hold any credential.
      { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
    );

  return [
    { path: MCP_PATH, handler: serve },
    { path: PROTECTED_RESOURCE_PATH, handler: metadata },
    { path: MCP_RESOURCE_METADATA_PATH, handler: metadata },
  ];
}

type StandardJsonSchema = StandardSchemaWithJSON['~standard'];
const converted = new WeakMap<object, StandardSchemaWithJSON<Record<string, unknown>>>();

/**
 * A tool's schema whose JSON Schema is computed once for the process: the SDK converts each
 * schema on every server it makes, one per request here (a third of a tool call's CPU).
 */
function convertedOnce(
  schema: StandardSchemaWithJSON<Record<string, unknown>>,
): StandardSchemaWithJSON<Record<string, unknown>> {
  let wrapped = converted.get(schema);
  if (!wrapped) {
    const standard = schema['~standard'];
    const json = new Map<string, Record<string, unknown>>();
    const once =
      (io: 'input' | 'output'): StandardJsonSchema['jsonSchema']['input'] =>
      (options) => {
        const key = `${io} ${JSON.stringify(options)}`;
        if (!json.has(key)) json.set(key, standard.jsonSchema[io](options));
        return structuredClone(json.get(key)!);
      };
    wrapped = { '~standard': { ...standard, jsonSchema: { input: once('input'), output: once('output') } } };
    converted.set(schema, wrapped);
  }
  return wrapped;
}

function refusalOf(error: DomainError): Refusal {
  const retry = error.retryAfterSeconds;
  return new Refusal(errorStatus[error.code], error.message, retry ? { 'retry-after': String(retry) } : {});
}

function streamTo(source: Readable, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    source.on('error', () => res.destroy());
    res.on('close', () => {
      source.destroy();
      resolve();
    });
    source.pipe(res);
  });
}
