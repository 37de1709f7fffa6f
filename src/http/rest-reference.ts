/**
 * The REST reference page: Swagger UI (swagger-ui-dist, served from node_modules) rendering the
 * OpenAPI document the REST door serves. Nothing comes from outside the machine: the bundle, its
 * CSS and the page's start-up script are ours, the validator badge (validator.swagger.io) is
 * off, and a Content-Security-Policy keeps the page to this origin should a future version try.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { API_KEY_SCHEME, REST_PREFIX } from '../../rest-compat/index.js';
import { PrecompressedPage } from './compression.js';
import { sendJson } from './respond.js';
import type { Door } from './server.js';

export const REST_REFERENCE_PATH = '/docs/rest';
export const OPENAPI_PATH = `${REST_PREFIX}/openapi.json`;

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const { version: swaggerUiVersion } = createRequire(import.meta.url)('swagger-ui-dist/package.json') as {
  version: string;
};

/** Only this origin; inline styles because Swagger UI sets style attributes. */
const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Answers GET and HEAD with a fixed page; other methods get 405 like every other door. */
export async function sendPage(
  req: IncomingMessage,
  res: ServerResponse,
  page: Promise<PrecompressedPage>,
  headers: OutgoingHttpHeaders = {},
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const path = (req.url ?? '/').split('?')[0];
    await sendJson(res, 405, { error: `Use GET for ${path}.` }, { allow: 'GET, HEAD' });
    return;
  }
  (await page).send(req, res, headers);
}

/** A page made the first time it is asked for (compressing 1.7 MB takes a moment: not at start). */
function lazy(make: () => Promise<PrecompressedPage>): () => Promise<PrecompressedPage> {
  let page: Promise<PrecompressedPage> | undefined;
  return () => (page ??= make());
}

/**
 * Swagger UI's files, cacheable for a year: their URLs carry the renderer's version, so an upgrade
 * changes the URL rather than leaving browsers with a stale copy.
 */
function assetDoor(file: string, contentType: string): { door: Door; url: string } {
  const path = `${REST_REFERENCE_PATH}/${file}`;
  const page = lazy(async () =>
    PrecompressedPage.create(
      await readFile(join(swaggerUiDir, file)),
      contentType,
      'public, max-age=31536000, immutable',
    ),
  );
  return {
    door: { path, handler: (req, res) => sendPage(req, res, page()) },
    url: `${path}?v=${swaggerUiVersion}`,
  };
}

export interface RestReferenceSetup {
  /**
   * The key "Try it out" starts with (the demo account admin's, only while the demo dataset is
   * loaded, as GraphiQL's headers): the reference's first request then runs as it is. Without
   * one, Authorize asks for a key.
   */
  apiKey?: string;
}

export function restReferenceDoors({ apiKey }: RestReferenceSetup = {}): Door[] {
  const script = assetDoor('swagger-ui-bundle.js', 'text/javascript; charset=utf-8');
  const styles = assetDoor('swagger-ui.css', 'text/css; charset=utf-8');
  // Its own file rather than inline, so the policy can forbid inline scripts.
  const startPath = `${REST_REFERENCE_PATH}/start.js`;
  const options = JSON.stringify({
    url: OPENAPI_PATH,
    dom_id: '#reference',
    validatorUrl: null, // the default badge is an image from validator.swagger.io
    docExpansion: 'list', // every operation's method, path and summary shown, details on click
    deepLinking: true,
    filter: true,
    // Keys stay out of localStorage, as GraphiQL's headers do (graphiql.ts): the demo key comes
    // back from this script on each visit, a key typed into Authorize lasts as long as the page.
    persistAuthorization: false,
  });
  // Swagger UI calls onComplete once the document is loaded (after SwaggerUIBundle returned):
  // only then can a scheme of the document be authorized.
  const onComplete = apiKey
    ? `,\n  onComplete: () => window.ui.preauthorizeApiKey(${JSON.stringify(API_KEY_SCHEME)}, ${JSON.stringify(apiKey)}),\n`
    : '';
  const start = lazy(() =>
    PrecompressedPage.create(
      `window.ui = SwaggerUIBundle({ ...${options}${onComplete} });\n`,
      'text/javascript; charset=utf-8',
      // With the demo key in it: for this browser only, and asked again on each visit, so a restart
      // without the demo data (no key) shows at once.
      'private, no-cache',
    ),
  );
  const html = lazy(() =>
    PrecompressedPage.create(
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>REST reference: /external/v1</title>
<link rel="stylesheet" href="${styles.url}">
<style>body { margin: 0; } nav { font: 14px sans-serif; padding: 8px 20px; background: #f4f4f4; }</style>
</head>
<body>
<nav><a href="/">Home</a> · <a href="${OPENAPI_PATH}">OpenAPI document</a> · <a href="/graphql">GraphiQL</a></nav>
<div id="reference"></div>
<script src="${script.url}"></script>
<script src="${startPath}"></script>
</body>
</html>
`,
      'text/html; charset=utf-8',
    ),
  );
  const policy = { 'content-security-policy': contentSecurityPolicy };
  return [
    { path: REST_REFERENCE_PATH, handler: (req, res) => sendPage(req, res, html(), policy) },
    script.door,
    styles.door,
    { path: startPath, handler: (req, res) => sendPage(req, res, start()) },
  ];
}
