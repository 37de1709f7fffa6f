/**
 * The home page at `/`: what the service is, where everything is, the demo personas and their
 * keys (when the demo dataset is loaded), and every error a client can meet. Browsers (an Accept
 * that names text/html) get HTML; everything else, `curl` included, gets the same index as JSON.
 */

import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { REST_PREFIX } from '../../rest-compat/index.js';
import type { DemoPersona } from '../../seeds/index.js';
import { MCP_RESOURCE_METADATA_PATH } from '../mcp/endpoints.js';
import { PrecompressedPage } from './compression.js';
import { graphqlErrorCodes, restErrorStatuses } from './error-catalog.js';
import { Html, html } from './html.js';
import { OPENAPI_PATH, REST_REFERENCE_PATH, sendPage } from './rest-reference.js';
import type { Door } from './server.js';

export interface HomeOptions {
  version: string;
  /** The personas of the demo dataset, when it was loaded. */
  demoPersonas?: readonly DemoPersona[];
}

/** The service's version, from the nearest package.json up from this module (src/ or dist/src/). */
export function serviceVersion(): string {
  for (let dir = new URL('./', import.meta.url); dir.pathname !== '/'; dir = new URL('../', dir)) {
    try {
      return (JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { version: string }).version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error('package.json not found above the service');
}

const about =
  'A GraphQL API for recorded meetings (transcripts, summaries, action items, highlights, CRM ' +
  'matches), teams, users and webhooks, with a REST compatibility layer that speaks the public ' +
  '/external/v1 API. Both doors run through one implementation: each REST endpoint is a GraphQL ' +
  'document executed by the same pipeline, so authentication, visibility and limits are the same; ' +
  'so is the MCP door for AI agents, whose tools are those documents too.';

const links = [
  {
    name: 'graphql',
    href: '/graphql',
    title: 'GraphiQL',
    what: 'write and run GraphQL queries, browse the schema',
  },
  {
    name: 'restReference',
    href: REST_REFERENCE_PATH,
    title: 'REST reference',
    what: 'every /external/v1 endpoint, its parameters and answers',
  },
  {
    name: 'openapi',
    href: OPENAPI_PATH,
    title: 'OpenAPI document',
    what: 'the REST API as OpenAPI 3.1 JSON',
  },
  {
    name: 'oauth',
    href: '/.well-known/oauth-authorization-server',
    title: 'OAuth metadata',
    what: 'connected apps: the authorization server (account admins register apps with GraphQL registerApp)',
  },
  {
    name: 'mcp',
    href: MCP_RESOURCE_METADATA_PATH,
    title: 'MCP door',
    what: 'AI agents: /mcp serves the Model Context Protocol (this link: how an MCP client gets access; any client needs only the /mcp URL)',
  },
  { name: 'healthz', href: '/healthz', title: '/healthz', what: 'liveness: the process answers' },
  {
    name: 'readyz',
    href: '/readyz',
    title: '/readyz',
    what: 'readiness: the database answers (503 otherwise)',
  },
  { name: 'metrics', href: '/metrics', title: '/metrics', what: 'Prometheus metrics' },
] as const;

const styles = `
body { font: 16px/1.5 system-ui, sans-serif; color: #1d1d1f; max-width: 62rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { margin-bottom: 0; } h1 small { font-size: 1rem; font-weight: normal; color: #666; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
a { color: #0b57d0; }
code, pre { font: 14px/1.4 ui-monospace, monospace; background: #f4f4f6; }
code { padding: 0 .2em; }
pre { padding: .7rem 1rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; vertical-align: top; padding: .35rem .6rem; border-bottom: 1px solid #e4e4e7; }
th { background: #f4f4f6; }
td code { word-break: break-all; } /* long keys wrap instead of widening the table */
`;

function personasSection(personas: readonly DemoPersona[], base: string): Html {
  const key = personas.find((p) => p.kind === 'api_key') ?? personas[0]!;
  const app = personas.find((p) => p.kind === 'connected_app');
  const query = JSON.stringify({ query: '{ meetings(first: 3) { edges { node { recordingId title } } } }' });
  return html`<h2 id="demo">Demo personas</h2>
<p>The demo dataset is loaded. Each persona shows
part of the access rules. Send a key as the <code>X-Api-Key</code> header; a connected app's token
goes in <code>Authorization: Bearer</code>. GraphiQL and the REST reference's "Try it out" start
with the account admin's key; to be another persona, put <code>{"X-Api-Key": "…"}</code> in
GraphiQL's Headers tab, or the key in the reference's Authorize dialog.</p>
<table>
<thead><tr><th>persona</th><th>email</th><th>send as</th><th>key</th><th>what it shows</th></tr></thead>
<tbody>${personas.map(
    (p) => html`<tr><td>${p.label}</td><td>${p.email}</td>
<td>${p.kind === 'connected_app' ? 'Authorization: Bearer' : 'X-Api-Key'}</td>
<td><code>${p.apiKey}</code></td><td>${p.demonstrates}</td></tr>
`,
  )}</tbody>
</table>
<h3>Try it</h3>
<p>REST, as ${key.label}:</p>
<pre>curl -s '${base}${REST_PREFIX}/meetings?limit=3' -H 'X-Api-Key: ${key.apiKey}'</pre>
<p>GraphQL, the same:</p>
<pre>curl -s '${base}/graphql' -H 'content-type: application/json' -H 'X-Api-Key: ${key.apiKey}' \\
  -d '${query}'</pre>
${
  app
    ? html`<p>As a connected app (${app.label}):</p>
<pre>curl -s '${base}${REST_PREFIX}/meetings?limit=3' -H 'Authorization: Bearer ${app.apiKey}'</pre>`
    : ''
}`;
}

function errorsSection(): Html {
  return html`<h2 id="errors">Errors</h2>
<p>GraphQL errors carry <code>extensions.code</code> and <code>extensions.http.status</code>; REST
errors are <code>{"error": "…"}</code> with the HTTP status. Every answer has an
<code>X-Request-Id</code>: quote it when reporting a problem.</p>
<h3>GraphQL</h3>
<table>
<thead><tr><th>extensions.code</th><th>status</th><th>meaning</th><th>what to do</th></tr></thead>
<tbody>${graphqlErrorCodes.map(
    (
      e,
    ) => html`<tr><td><code>${e.code}</code></td><td>${e.status}</td><td>${e.meaning}</td><td>${e.action}</td></tr>
`,
  )}</tbody>
</table>
${
  restErrorStatuses.length > 0
    ? html`<h3>REST</h3>
<table>
<thead><tr><th>status</th><th>meaning</th><th>what to do</th></tr></thead>
<tbody>${restErrorStatuses.map(
        (e) => html`<tr><td>${e.status}</td><td>${e.meaning}</td><td>${e.action}</td></tr>
`,
      )}</tbody>
</table>`
    : ''
}`;
}

function homeHtml(options: HomeOptions, base: string): string {
  const personas = options.demoPersonas ?? [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Meetings gateway ${options.version}</title>
<style>${new Html(styles)}</style>
</head>
<body>
<h1>Meetings gateway <small>version ${options.version}</small></h1>
<p>${about}</p>
<h2 id="links">Start here</h2>
<ul>
${links.map((l) => html`<li><a href="${l.href}">${l.title}</a>: ${l.what}</li>\n`)}</ul>
${
  personas.length > 0
    ? personasSection(personas, base)
    : html`<h2 id="keys">API keys</h2>
<p>No demo dataset is loaded: ask your account admin for an API key and send it as the
<code>X-Api-Key</code> header (connected apps: <code>Authorization: Bearer</code>).</p>`
}
${errorsSection()}
</body>
</html>
`.text;
}

function homeJson(options: HomeOptions): string {
  return JSON.stringify({
    service: 'meetings-gateway',
    version: options.version,
    about,
    links: Object.fromEntries(links.map((l) => [l.name, l.href])),
    authentication: 'X-Api-Key: <key>, or Authorization: Bearer <token> for connected apps',
    ...(options.demoPersonas
      ? {
          demoPersonas: options.demoPersonas.map((p) => ({
            label: p.label,
            email: p.email,
            header: p.kind === 'connected_app' ? 'Authorization: Bearer' : 'X-Api-Key',
            key: p.apiKey,
            demonstrates: p.demonstrates,
          })),
        }
      : {}),
  });
}

/** HTML only for a client that names text/html (a browser), at a q-value no lower than JSON's. */
export function wantsHtml(accept: string | undefined): boolean {
  const q = (type: string): number => {
    for (const part of (accept ?? '').toLowerCase().split(',')) {
      const [name, ...params] = part.split(';').map((s) => s.trim());
      if (name !== type) continue;
      const given = params.find((p) => p.startsWith('q='));
      return given ? Number(given.slice(2)) || 0 : 1;
    }
    return 0;
  };
  const htmlQ = q('text/html');
  return htmlQ > 0 && htmlQ >= q('application/json');
}

/** The address the client reached, for ready-to-run commands: its Host header when sane. */
function baseUrl(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host && /^([\w.-]+|\[[\d a-f:.]+\])(:\d{1,5})?$/i.test(host)) return `http://${host}`;
  const { localAddress = '127.0.0.1', localPort } = req.socket;
  return `http://${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${localPort}`;
}

/** Pages by base URL: a handful at most (localhost, 127.0.0.1, a host name); more are not kept. */
const MAX_CACHED_BASES = 16;

export function homeDoor(options: HomeOptions): Door {
  const json = PrecompressedPage.create(homeJson(options), 'application/json; charset=utf-8');
  const pages = new Map<string, Promise<PrecompressedPage>>();
  const htmlPage = (base: string) => {
    let page = pages.get(base);
    if (!page) {
      page = PrecompressedPage.create(homeHtml(options, base), 'text/html; charset=utf-8');
      if (pages.size < MAX_CACHED_BASES) pages.set(base, page);
    }
    return page;
  };
  return {
    path: '/',
    handler: (req, res) =>
      sendPage(req, res, wantsHtml(req.headers.accept) ? htmlPage(baseUrl(req)) : json, { vary: 'Accept' }),
  };
}
