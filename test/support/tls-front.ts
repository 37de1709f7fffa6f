/**
 * A TLS-terminating front for the service, as a proxy in production would be: HTTPS on a port of
 * its own, with a throwaway certificate (made by openssl) for the host names it is given, passing
 * every request to the service with `X-Forwarded-Proto: https`. A browser started with
 * `hostResolverRules(...)` reaches the service under those names.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TlsFront {
  port: number;
  /** Chromium's flag sending each of the host names to this front. */
  hostResolverRules: string;
  close(): Promise<void>;
}

export async function startTlsFront(target: string, hostNames: string[]): Promise<TlsFront> {
  const dir = await mkdtemp(join(tmpdir(), 'tls-front-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    `/CN=${hostNames[0]}`,
    '-addext',
    `subjectAltName=${hostNames.map((h) => `DNS:${h}`).join(',')}`,
  ]);
  const server = createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
    const upstream = httpRequest(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: { ...req.headers, 'x-forwarded-proto': 'https' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hostResolverRules: `--host-resolver-rules=${hostNames.map((h) => `MAP ${h} 127.0.0.1:${port}`).join(', ')}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
