/**
 * Serves the reference frontend (index.html, app.ts) for a running service:
 *
 *   CORS_ORIGINS=http://localhost:5173 npm start      # the service, letting the page call it
 *   npm run examples:frontend                         # SERVICE_URL (http://localhost:4000), PORT (5173)
 *
 * then open http://localhost:5173. At the first page load it registers the page with the service
 * as a public OAuth client for its own origin (RFC 7591: no secret, PKCE), as any single-page app
 * may; it turns app.ts into JavaScript as it serves it (TypeScript's transpileModule, no bundler).
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface Frontend {
  /** Where the page is, e.g. http://localhost:5173. */
  origin: string;
  close(): Promise<void>;
}

/** Registers the page as a public client whose redirect URI is its own origin. */
async function register(service: string, redirectUri: string): Promise<string> {
  const res = await fetch(`${service}/external/v1/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Reference frontend',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = (await res.json()) as { client_id?: string; error_description?: string };
  if (!res.ok || !body.client_id)
    throw new Error(
      `registering the frontend with ${service} failed: ${body.error_description ?? res.status}`,
    );
  return body.client_id;
}

/** Serves the page on `port` (0: any) of `host`, for the service at `service()`. */
export async function serveFrontend(options: {
  service: () => string;
  port?: number;
  host?: string;
}): Promise<Frontend> {
  const script = ts.transpileModule(await readFile(here('./app.ts'), 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  const page = await readFile(here('./index.html'));
  let clientId: Promise<string> | undefined;
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    const send = (type: string, body: string | Buffer) =>
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' }).end(body);
    if (path === '/') return send('text/html; charset=utf-8', page);
    if (path === '/app.js') return send('text/javascript; charset=utf-8', script);
    if (path === '/config.json') {
      const redirectUri = `${origin}/`;
      clientId ??= register(options.service(), redirectUri);
      clientId.then(
        (id) =>
          send('application/json', JSON.stringify({ service: options.service(), clientId: id, redirectUri })),
        (error: Error) => {
          clientId = undefined; // try again at the next load
          res.writeHead(502, { 'content-type': 'text/plain' }).end(error.message);
        },
      );
      return;
    }
    if (path === '/favicon.ico') return res.writeHead(204).end();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  const host = options.host ?? 'localhost';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const service = process.env.SERVICE_URL ?? 'http://localhost:4000';
  const frontend = await serveFrontend({ service: () => service, port: Number(process.env.PORT ?? 5173) });
  console.log(
    `the reference frontend: ${frontend.origin} (for ${service}; start it with CORS_ORIGINS=${frontend.origin})`,
  );
}
