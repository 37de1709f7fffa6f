/**
 * Sign-in at the organisation's identity provider: a real OpenID Connect provider started here
 * (a second oidc-provider, with its development sign-in pages, at http://localhost: another host
 * than the service's 127.0.0.1, so their cookies stay apart as in a browser). The person signs in
 * there, is sent back, and the service matches the verified email to an active user; an unknown
 * email, an unverified one and a deactivated user are turned away with a page saying why.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  Browser,
  exchange,
  REDIRECT_URI,
  type RegisteredApp,
  registerApp,
  restStatus,
} from '../support/oauth.js';

const IDP_CLIENT = { id: 'meetings-gateway', secret: 'a-secret-of-the-identity-provider' };

let t: TestApp;
let idpServer: Server;
let idpUrl: string;
let app: RegisteredApp;

beforeAll(async () => {
  // The identity provider's address first (the service is configured with it), its provider once
  // the service's callback address is known.
  let serve: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  idpServer = createServer((req, res) => serve(req, res));
  await new Promise<void>((resolve) => idpServer.listen(0, '127.0.0.1', resolve));
  idpUrl = `http://localhost:${(idpServer.address() as AddressInfo).port}`;
  t = await startTestApp({
    OIDC_ISSUER: idpUrl,
    OIDC_CLIENT_ID: IDP_CLIENT.id,
    OIDC_CLIENT_SECRET: IDP_CLIENT.secret,
  });
  const idp = new Provider(idpUrl, {
    clients: [
      {
        client_id: IDP_CLIENT.id,
        client_secret: IDP_CLIENT.secret,
        redirect_uris: [`${t.url}/external/v1/oauth2/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    // Anyone signs in with any name; the name is the email, verified unless it says otherwise.
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: id.replace(/^unverified:/, ''),
        email_verified: !id.startsWith('unverified:'),
      }),
    }),
    claims: { email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['the-identity-providers-cookie-key'] },
  });
  serve = idp.callback();
  app = await registerApp(t);
}, 60_000);
afterAll(async () => {
  await t.close();
  idpServer.closeAllConnections();
  await new Promise((resolve) => idpServer.close(resolve));
});

/**
 * An authorization request whose sign-in happens at the identity provider as `name`; consent on
 * the service's page. Ends where the browser is last sent: the app, or a page of the service.
 */
async function signInUpstream(
  name: string,
): Promise<{ redirect?: URL; page?: { status: number; text: string } }> {
  const browser = new Browser(t);
  let res = await browser.startAuthorization(app.clientId);
  for (let step = 0; step < 16; step++) {
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, res.url);
      if (next.href.startsWith(REDIRECT_URI)) return { redirect: next };
      res = await browser.go(next);
      continue;
    }
    const text = await res.text();
    if (res.url.startsWith(idpUrl)) {
      // The identity provider's own pages: its sign-in (any name), then its consent.
      const action = new URL(/action="([^"]+)"/.exec(text)![1]!, res.url);
      const prompt = /name="prompt" value="(\w+)"/.exec(text)![1]!;
      const form: Record<string, string> =
        prompt === 'login' ? { prompt, login: name, password: 'x' } : { prompt };
      res = await browser.post(action.href, form, idpUrl);
    } else if (res.status === 200 && text.includes('/consent"')) {
      res = await browser.post(/action="([^"]+)"/.exec(text)![1]!, { decision: 'allow' });
    } else return { page: { status: res.status, text } };
  }
  throw new Error('the sign-in did not end within 16 steps');
}

describe('sign-in at the identity provider', () => {
  it('an active user signs in there, consents here, and the app gets a token acting as them', async () => {
    const { redirect } = await signInUpstream('tom.baker@acme.test');
    const code = redirect!.searchParams.get('code')!;
    const tokens = (await exchange(t, app, code)).body;
    expect(await restStatus(t, tokens.access_token)).toBe(200);
    const viewer = await t.graphql('{ viewer { email } }', {}, `Bearer ${tokens.access_token}`);
    expect(viewer.body.data.viewer.email).toBe('tom.baker@acme.test');
  });

  it('offers no demo sign-in while an identity provider is configured', async () => {
    const browser = new Browser(t);
    const first = await browser.startAuthorization(app.clientId);
    const signIn = await browser.go(first.headers.get('location')!);
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(new RegExp(`^${idpUrl}/`));
  });

  it('turns away an unknown email, an unverified one and a deactivated user, saying why; nothing is granted', async () => {
    for (const [name, why] of [
      ['nobody@acme.test', 'No active user has the email nobody@acme.test'],
      ['unverified:tom.baker@acme.test', 'has not verified tom.baker@acme.test'],
      ['dana.fischer@acme.test', 'No active user has the email dana.fischer@acme.test'],
    ] as const) {
      const { redirect, page } = await signInUpstream(name);
      expect(redirect).toBeUndefined();
      expect(page!.status).toBe(403);
      expect(page!.text).toContain(why);
    }
  });
});
