/**
 * The public API's official SDK (fathom-typescript), unmodified, authorizing an app the way its
 * README shows: `Fathom.getAuthorizationUrl` opened in a real browser (headless Chromium), the
 * person signing in and allowing the app on the service's pages, then `Fathom.withAuthorization`
 * with `Fathom.newTokenStore()` exchanging the code, listing meetings, refreshing an expired token,
 * and failing once the person revoked the app. Then the same flow for a public app with PKCE and
 * no secret, which the SDK's helpers do not offer, with the browser and plain requests.
 *
 * The SDK has the public service's host names built in. The test routes them to the service, as
 * if it were deployed there behind a TLS-terminating proxy (`PUBLIC_URL=https://fathom.video`):
 * the browser resolves them to a TLS front (test/support/tls-front.ts, a throwaway certificate),
 * the SDK's `fetch` calls go straight to the service with `X-Forwarded-Proto: https`.
 */
import { Fathom } from 'fathom-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testBrowser } from '../support/browser.js';
import { pkce, type RegisteredApp, registerApp, restStatus, token } from '../support/oauth.js';
import { startTlsFront, type TlsFront } from '../support/tls-front.js';

const PUBLIC_URL = 'https://fathom.video';
const SDK_HOSTS = /^https:\/\/(fathom\.video|api\.fathom\.ai)(\/|$)/;
const REDIRECT_URI = 'https://crm.example/oauth/callback';

let t: TestApp;
let front: TlsFront;
// The certificate is the front's own: the browser is told to accept it.
const browser = testBrowser(() => [front.hostResolverRules, '--ignore-certificate-errors']);
const realFetch = globalThis.fetch;

/** The service's address for a URL of the SDK's hosts. */
function routed(url: string): string {
  const { pathname, search } = new URL(url);
  return `${t.url}${pathname}${search}`;
}

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL });
  front = await startTlsFront(t.url, ['fathom.video', 'api.fathom.ai']);
  // The SDK calls the global fetch (its token requests and its API calls): its hosts go to the service.
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!SDK_HOSTS.test(url)) return realFetch(input, init);
    const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
    headers.set('x-forwarded-proto', 'https');
    if (input instanceof Request) return realFetch(new Request(routed(url), input), { headers });
    return realFetch(routed(url), { ...init, headers });
  };
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await browser.close();
  await front.close();
  await t.close();
});

/** Opens `authorizationUrl` in the browser, signs in as `email`, allows the app; the redirect it ends at. */
async function authorizeInBrowser(
  authorizationUrl: string,
  email: string,
  redirectUri: string,
): Promise<URL> {
  const { page } = await browser.open(PUBLIC_URL);
  let landed: URL | undefined;
  await page.route(
    (url) => url.href.startsWith(redirectUri),
    async (route) => {
      landed = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Connected.</p>' });
    },
  );
  await page.goto(authorizationUrl);
  await page.getByRole('button', { name: email }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri));
  await page.close();
  return landed!;
}

describe('the official SDK authorizes an app', () => {
  let app: RegisteredApp;
  beforeAll(async () => {
    app = await registerApp(t, 'CONFIDENTIAL', [REDIRECT_URI]);
  });

  it('signs in and consents in the browser, lists meetings, refreshes an expired token, and stops once revoked', async () => {
    const url = Fathom.getAuthorizationUrl({
      clientId: app.clientId,
      redirectUri: REDIRECT_URI,
      scope: 'public_api',
      state: 'sdk-state',
    });
    const landed = await authorizeInBrowser(url, 'tom.baker@acme.test', REDIRECT_URI);
    expect(landed.searchParams.get('state')).toBe('sdk-state');
    expect(landed.searchParams.get('iss')).toBe(PUBLIC_URL);

    const tokenStore = Fathom.newTokenStore();
    const security = Fathom.withAuthorization({
      clientId: app.clientId,
      clientSecret: app.clientSecret!,
      code: landed.searchParams.get('code')!,
      redirectUri: REDIRECT_URI,
      tokenStore,
    });
    const fathom = new Fathom({ security });
    const firstPage = async () => {
      for await (const page of await fathom.listMeetings({})) return page!.result.items;
      return [];
    };
    const meetings = await firstPage();
    expect(meetings.length).toBeGreaterThan(0);
    const issued = (await tokenStore.get())!;

    // The token has expired (as far as the SDK knows): it refreshes, and the new token works.
    await tokenStore.set(issued.token, issued.refresh_token, 0);
    expect((await firstPage()).map((m) => m.recordingId)).toEqual(meetings.map((m) => m.recordingId));
    const refreshed = (await tokenStore.get())!;
    expect(refreshed.token).not.toBe(issued.token);
    expect(refreshed.refresh_token).not.toBe(issued.refresh_token);

    // Tom revokes the app: its token is refused within the credential cache's bound, and so is a refresh.
    const tomKey = keyOf('team admin (Sales)');
    const listed = await t.graphql('{ viewer { appAuthorizations { id clientId } } }', {}, tomKey);
    const grant = listed.body.data.viewer.appAuthorizations.find(
      (a: { clientId: string }) => a.clientId === app.clientId,
    );
    await t.graphql(
      'mutation($id: ID!) { revokeAppAuthorization(id: $id) { id } }',
      { id: grant.id },
      tomKey,
    );
    await new Promise((r) => setTimeout(r, 1500));
    await expect(firstPage()).rejects.toThrow();
    // Its refresh fails too. (Asked of the SDK's security function itself: through listMeetings
    // the SDK also leaves the same rejection unobserved, which the runner reports.)
    await tokenStore.set(refreshed.token, refreshed.refresh_token, 0);
    await expect(security()).rejects.toThrow('Failed to obtain OAuth token');
  });

  it('a public app: PKCE and no secret, in the browser, then the code exchanged and refreshed', async () => {
    const publicApp = await registerApp(t, 'PUBLIC', [REDIRECT_URI]);
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: publicApp.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'public_api',
      state: 'pkce-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const landed = await authorizeInBrowser(
      `${PUBLIC_URL}/external/v1/oauth2/authorize?${query}`,
      'sam.rivera@acme.test',
      REDIRECT_URI,
    );
    const exchanged = await token(t, {
      grant_type: 'authorization_code',
      code: landed.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      client_id: publicApp.clientId,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    expect(await restStatus(t, exchanged.body.access_token)).toBe(200);
    const refreshed = await token(t, {
      grant_type: 'refresh_token',
      refresh_token: exchanged.body.refresh_token,
      client_id: publicApp.clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(await restStatus(t, refreshed.body.access_token)).toBe(200);
  });
});
