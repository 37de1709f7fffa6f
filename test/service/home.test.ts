/**
 * The home page at `/`: what a developer sees first. HTML for browsers with the version, links
 * that work, the demo personas and their keys (only when the demo data is loaded), ready-to-run
 * commands and the error tables; a JSON index for everything else; compressed, with an ETag.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import { graphqlErrorCodes, restErrorStatuses } from '../../src/http/error-catalog.js';
import { startTestApp, type TestApp } from '../support/app.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

let t: TestApp;
let home: string;
beforeAll(async () => {
  t = await startTestApp();
  const res = await fetch(`${t.url}/`, { headers: browser });
  home = await res.text();
});
afterAll(() => t?.close());

describe('the home page in a browser', () => {
  it('is an HTML page naming the service and its version', async () => {
    const res = await fetch(`${t.url}/`, { headers: browser });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(home).toContain('<title>Meetings gateway');
    expect(home).toContain(`version ${version}`);
  });

  it('links to GraphiQL, the REST reference, the OpenAPI document and the operational endpoints, all answering 200', async () => {
    const hrefs = [...home.matchAll(/<a href="([^"]+)"/g)].map((m) => unescapeHtml(m[1]!));
    expect(hrefs).toEqual(
      expect.arrayContaining([
        '/graphql',
        '/docs/rest',
        '/external/v1/openapi.json',
        '/.well-known/oauth-protected-resource/mcp',
        '/healthz',
        '/readyz',
        '/metrics',
      ]),
    );
    for (const href of hrefs) {
      const res = await fetch(new URL(href, t.url), { headers: browser });
      expect(res.status, href).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('lists every demo persona with its email, key and what it shows, and how to send the key', () => {
    for (const persona of demoPersonas) {
      expect(home).toContain(escapeHtml(persona.email));
      expect(home).toContain(escapeHtml(persona.apiKey));
      expect(home).toContain(escapeHtml(persona.demonstrates));
    }
    expect(home).toContain('X-Api-Key');
    expect(home).toContain('Authorization: Bearer');
  });

  it('gives curl commands, for REST and GraphQL, that run as written against this server', async () => {
    const commands = [...home.matchAll(/<pre>(curl [\s\S]*?)<\/pre>/g)].map((m) => unescapeHtml(m[1]!));
    const rest = commands.find((c) => c.includes('/external/v1/meetings') && c.includes('X-Api-Key'));
    const graphql = commands.find((c) => c.includes('/graphql'));
    const app = commands.find((c) => c.includes('Authorization: Bearer'));
    expect(rest && graphql && app).toBeTruthy();
    // The arguments between single quotes, as a shell would read them.
    const args = (command: string) => [...command.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
    const header = (arg: string) => arg.split(': ') as [string, string];

    const [restUrl, restKey] = args(rest!);
    expect(restUrl!.startsWith(`${t.url}/`)).toBe(true);
    const restAnswer = await fetch(restUrl!, { headers: [header(restKey!)] });
    expect(restAnswer.status).toBe(200);
    expect(((await restAnswer.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);

    const [appUrl, token] = args(app!);
    const appAnswer = await fetch(appUrl!, { headers: [header(token!)] });
    expect(appAnswer.status).toBe(200);

    const [graphqlUrl, contentType, graphqlKey, body] = args(graphql!);
    const graphqlAnswer = await fetch(graphqlUrl!, {
      method: 'POST',
      headers: [header(contentType!), header(graphqlKey!)],
      body,
    });
    expect(graphqlAnswer.status).toBe(200);
    const result = (await graphqlAnswer.json()) as {
      data?: { meetings: { edges: unknown[] } };
      errors?: unknown;
    };
    expect(result.errors).toBeUndefined();
    expect(result.data!.meetings.edges.length).toBeGreaterThan(0);
  });

  it('uses the host the browser asked for in its commands', async () => {
    const { port } = new URL(t.url);
    // fetch sets Host itself; node:http sends the one given, as a browser on localhost would.
    const page = await new Promise<string>((resolve, reject) => {
      get(`${t.url}/`, { headers: { ...browser, host: `localhost:${port}` } }, (res) => {
        res.setEncoding('utf8');
        let body = '';
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
    expect(page).toContain(`curl -s 'http://localhost:${port}/external/v1/meetings`);
    expect(page).not.toContain('http://127.0.0.1');
  });

  it('shows every GraphQL error code and REST status of the error catalog, escaped', () => {
    for (const e of graphqlErrorCodes) {
      expect(home).toContain(`<code>${e.code}</code></td><td>${e.status}</td>`);
      expect(home).toContain(escapeHtml(e.meaning));
      expect(home).toContain(escapeHtml(e.action));
    }
    for (const e of restErrorStatuses) {
      expect(home).toContain(`<td>${e.status}</td><td>${escapeHtml(e.meaning)}</td>`);
      expect(home).toContain(escapeHtml(e.action));
    }
    // The catalog has quotes and backticks in it: they come through as text, not as markup.
    const quoted = graphqlErrorCodes.find((e) => /['"<>&]/.test(e.meaning + e.action));
    expect(quoted).toBeDefined();
    expect(home).toContain(`<td>${escapeHtml(quoted!.meaning)}</td>`);
    expect(home).not.toContain(`<td>${quoted!.meaning}</td>`);
  });

  it('is compressed for clients that accept it, with an ETag that makes revalidation a 304', async () => {
    const res = await fetch(`${t.url}/`, { headers: { ...browser, 'accept-encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toMatch(/Accept\b.*Accept-Encoding|Accept-Encoding.*Accept\b/);
    expect(await res.text()).toBe(home); // fetch decodes it
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${t.url}/`, { headers: { ...browser, 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });

  it('answers HEAD without a body, refuses POST with 405, and leaves unknown paths 404', async () => {
    const head = await fetch(`${t.url}/`, { method: 'HEAD', headers: browser });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('text/html');
    expect(await head.text()).toBe('');

    const post = await fetch(`${t.url}/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(((await post.json()) as { error: string }).error).toMatch(/GET/);

    const unknown = await fetch(`${t.url}/no-such-page`, { headers: browser });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error:
        'No such path: /no-such-page. The API is at /graphql and /external/v1; the home page at / lists every endpoint.',
    });
  });
});

describe('the home page for programs', () => {
  it('answers Accept: application/json, and curl’s */*, with a JSON index of the links and the demo keys', async () => {
    for (const accept of ['application/json', '*/*']) {
      const res = await fetch(`${t.url}/`, { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const index = (await res.json()) as {
        version: string;
        links: Record<string, string>;
        demoPersonas: { email: string; header: string; key: string }[];
      };
      expect(index.version).toBe(version);
      expect(index.links).toMatchObject({
        graphql: '/graphql',
        restReference: '/docs/rest',
        openapi: '/external/v1/openapi.json',
        healthz: '/healthz',
      });
      expect(index.demoPersonas.map((p) => p.key)).toEqual(demoPersonas.map((p) => p.apiKey));
      expect(index.demoPersonas.find((p) => p.key.startsWith('mct_'))?.header).toBe('Authorization: Bearer');
    }
  });
});

describe('without the demo dataset', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await startTestApp({ SEED_DEMO: 'false' });
  });
  afterAll(() => plain?.close());

  it('shows no persona and no key, and says how to authenticate', async () => {
    const page = await (await fetch(`${plain.url}/`, { headers: browser })).text();
    expect(page).toContain(`version ${version}`);
    for (const persona of demoPersonas) {
      expect(page).not.toContain(persona.apiKey);
      expect(page).not.toContain(persona.email);
    }
    expect(page).toContain('X-Api-Key');
    expect(page).not.toContain('<pre>curl');

    const index = (await (
      await fetch(`${plain.url}/`, { headers: { accept: 'application/json' } })
    ).json()) as Record<string, unknown>;
    expect(index.version).toBe(version);
    expect(index).not.toHaveProperty('demoPersonas');
  });
});

describe('the REST reference page’s files', () => {
  it('serves Swagger UI from this server, compressed and cacheable for a year under a versioned URL', async () => {
    const page = await (await fetch(`${t.url}/docs/rest`)).text();
    const assets = [...page.matchAll(/(?:src|href)="(\/docs\/rest\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => /swagger-ui-bundle\.js\?v=/.test(a))).toBe(true);
    expect(assets.some((a) => /swagger-ui\.css\?v=/.test(a))).toBe(true);
    for (const asset of assets.filter((a) => a.includes('?v='))) {
      const res = await fetch(`${t.url}${asset}`, { headers: { 'accept-encoding': 'br' } });
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('br');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const etag = res.headers.get('etag')!;
      await res.arrayBuffer();
      const again = await fetch(`${t.url}${asset}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
  });
});
