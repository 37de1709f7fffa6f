/**
 * The OAuth 2.0 authorization server, as an app and a person's browser meet it over HTTP: its
 * RFC 8414 metadata; an app registered through GraphQL; the authorization code grant through the
 * demo sign-in and the consent page (PKCE for public apps, `iss` in the answer); tokens that act as
 * their user on both doors, with a connected app's restriction; refresh rotation and reuse; the
 * ways a grant ends (revocation, the app deleted, a code used twice); self-registration of public
 * clients; and nothing of a token, code or secret stored in clear.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { logLines } from '../support/log-lines.js';
import {
  authorize,
  Browser,
  exchange,
  formAction,
  pkce,
  REDIRECT_URI,
  type RegisteredApp,
  refusedSoon,
  registerApp,
  restStatus,
  token,
} from '../support/oauth.js';

const tom = 'tom.baker@acme.test';
const admin = keyOf('account admin');

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Authorizes `app` for `email` and exchanges the code: the token answer. */
async function tokensFor(app: RegisteredApp, email = tom) {
  const { redirect } = await authorize(t, { clientId: app.clientId, email });
  const answer = await exchange(t, app, redirect.searchParams.get('code')!);
  expect(answer.status).toBe(200);
  return answer.body as { access_token: string; refresh_token: string; expires_in: number; scope: string };
}

/** Signs Tom in for `clientId` in `browser`, up to the consent page: its form's action. */
async function consentFormOf(browser: Browser, clientId: string): Promise<string> {
  let res = await browser.startAuthorization(clientId);
  res = await browser.go(res.headers.get('location')!);
  res = await browser.post(formAction(await res.text()), { email: tom });
  res = await browser.go(res.headers.get('location')!);
  res = await browser.go(res.headers.get('location')!);
  return formAction(await res.text());
}

describe('cost', () => {
  it('a request with a warm access token costs the database what the same request with a warm API key costs', async () => {
    // Caches that outlive the test: "warm" must not depend on how long a moment is.
    const c = await startTestApp({ CREDENTIAL_CACHE_MS: '600000', DIRECTORY_CACHE_MS: '600000' });
    try {
      const app = await registerApp(c);
      const { redirect } = await authorize(c, { clientId: app.clientId, email: tom });
      const { access_token } = (await exchange(c, app, redirect.searchParams.get('code')!)).body;
      const key = keyOf('team admin (Sales)'); // Tom's key: the same user, so the same answer
      const get = (headers: Record<string, string>) =>
        fetch(`${c.url}/external/v1/meetings?limit=5`, { headers }).then((res) => res.arrayBuffer());
      const commandsOf = async (headers: Record<string, string>) => {
        await get(headers); // warm: the credential is recognised and kept
        const { commands } = await c.countCommands(() => get(headers));
        return commands
          .map((command) => `${command.commandName} ${Object.values(command.command)[0]}`)
          .sort();
      };
      const withToken = await commandsOf({ authorization: `Bearer ${access_token}` });
      expect(withToken.length).toBeGreaterThan(0);
      expect(withToken).toEqual(await commandsOf({ 'x-api-key': key }));
    } finally {
      await c.close();
    }
  });
});

describe('metadata (RFC 8414)', () => {
  it('names the issuer it is served under, the endpoints, S256 only, the one scope and iss in answers', async () => {
    const res = await fetch(`${t.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const m = (await res.json()) as Record<string, unknown>;
    expect(m).toMatchObject({
      issuer: t.url,
      authorization_endpoint: `${t.url}/external/v1/oauth2/authorize`,
      token_endpoint: `${t.url}/external/v1/oauth2/token`,
      revocation_endpoint: `${t.url}/external/v1/oauth2/revoke`,
      registration_endpoint: `${t.url}/external/v1/oauth2/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(m.scopes_supported).toContain('public_api');
    expect(m.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_post', 'client_secret_basic', 'none']),
    );
  });

  it('names the public URL’s endpoints whatever Host or X-Forwarded-Host a request claims', async () => {
    // node:http, not fetch: fetch sends the Host of the URL whatever it is given.
    const m = await new Promise<Record<string, string>>((resolve, reject) => {
      const req = request(`${t.url}/.well-known/oauth-authorization-server`, {
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      });
      req.on('response', async (res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        resolve(JSON.parse(Buffer.concat(chunks).toString()));
      });
      req.on('error', reject).end();
    });
    expect(m.issuer).toBe(t.url);
    expect(m.authorization_endpoint).toBe(`${t.url}/external/v1/oauth2/authorize`);
    expect(m.token_endpoint).toBe(`${t.url}/external/v1/oauth2/token`);
  });
});

describe('a confidential app, end to end', () => {
  it('gets a code with state and iss after sign-in and consent, and tokens of the documented shape', async () => {
    const app = await registerApp(t);
    const { redirect, pages } = await authorize(t, { clientId: app.clientId, email: tom, state: 'xyz' });
    expect(pages).toEqual(['login', 'consent']);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('state')).toBe('xyz');
    expect(redirect.searchParams.get('iss')).toBe(t.url);
    const answer = await exchange(t, app, redirect.searchParams.get('code')!);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'public_api' });
    expect(answer.body.access_token).toEqual(expect.any(String));
    expect(answer.body.refresh_token).toEqual(expect.any(String));
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('its token acts as the user on both doors, as a connected app: lists as their key does, content not in lists', async () => {
    const tokens = await tokensFor(await registerApp(t));
    const bearer = `Bearer ${tokens.access_token}`;
    const ids = async (key: string) => {
      const res = await fetch(`${t.url}/external/v1/meetings?limit=100`, {
        headers: key.startsWith('Bearer ') ? { authorization: key } : { 'x-api-key': key },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: { recording_id: number }[] }).items.map((m) => m.recording_id);
    };
    expect(await ids(bearer)).toEqual(await ids(keyOf('team admin (Sales)')));
    const included = await fetch(`${t.url}/external/v1/meetings?include_summary=true`, {
      headers: { authorization: bearer },
    });
    expect(included.status).toBe(400);
    expect(await included.json()).toEqual({ error: 'OAuth users are not allowed to include summary.' });
    const viewer = await t.graphql('{ viewer { email } }', {}, bearer);
    expect(viewer.body.data.viewer.email).toBe(tom);
    const listed = await t.graphql(
      '{ meetings(first: 1) { edges { node { transcript { text } } } } }',
      {},
      bearer,
    );
    expect(listed.body.errors?.[0]?.message).toBe('OAuth users are not allowed to include transcript.');
  });

  it('refreshes with rotation; a spent refresh token is invalid_grant and the newer tokens keep working', async () => {
    const app = await registerApp(t);
    const first = await tokensFor(app);
    const basic = { clientId: app.clientId, clientSecret: app.clientSecret! };
    const refreshed = await token(
      t,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      basic,
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    const again = await token(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await restStatus(t, refreshed.body.access_token)).toBe(200);
    const next = await token(
      t,
      { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token },
      basic,
    );
    expect(next.status).toBe(200);
  });

  it('remembers consent: authorizing the app again asks only who signs in', async () => {
    const app = await registerApp(t);
    await authorize(t, { clientId: app.clientId, email: tom });
    const second = await authorize(t, { clientId: app.clientId, email: tom });
    expect(second.pages).toEqual(['login']);
    expect(second.redirect.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('a denied consent goes back to the app with access_denied, and nothing is granted', async () => {
    const app = await registerApp(t);
    const { redirect } = await authorize(t, {
      clientId: app.clientId,
      email: tom,
      decision: 'deny',
      state: 's',
    });
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('s');
    expect(redirect.searchParams.get('code')).toBeNull();
    const listed = await t.graphql(
      '{ viewer { appAuthorizations { clientId } } }',
      {},
      keyOf('team admin (Sales)'),
    );
    expect(
      listed.body.data.viewer.appAuthorizations.map((a: { clientId: string }) => a.clientId),
    ).not.toContain(app.clientId);
  });
});

describe('a public app (PKCE, no secret)', () => {
  it('must send a code challenge, and the verifier that matches it', async () => {
    const app = await registerApp(t, 'PUBLIC');
    expect(app.clientSecret).toBeNull();
    const without = await authorize(t, { clientId: app.clientId, email: tom });
    expect(without.redirect.searchParams.get('error')).toBe('invalid_request');

    const { verifier, challenge } = pkce();
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom, challenge });
    const code = redirect.searchParams.get('code')!;
    const wrong = await exchange(t, app, code, { code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');

    const { redirect: again } = await authorize(t, { clientId: app.clientId, email: tom, challenge });
    const right = await exchange(t, app, again.searchParams.get('code')!, { code_verifier: verifier });
    expect(right.status).toBe(200);
  });

  it('a spent refresh token used again revokes the whole grant (reuse detection)', async () => {
    const app = await registerApp(t, 'PUBLIC');
    const { verifier, challenge } = pkce();
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom, challenge });
    const first = (await exchange(t, app, redirect.searchParams.get('code')!, { code_verifier: verifier }))
      .body;
    const refresh = (refreshToken: string) =>
      token(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.clientId });
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    expect((await refresh(second.body.refresh_token)).status).toBe(400);
    expect(await refusedSoon(t, second.body.access_token)).toBe(true);
  });
});

describe('how a grant ends', () => {
  it('a code used twice is invalid_grant, and the tokens of its first use stop working', async () => {
    const app = await registerApp(t);
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom });
    const code = redirect.searchParams.get('code')!;
    const first = await exchange(t, app, code);
    expect(first.status).toBe(200);
    const second = await exchange(t, app, code);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect(await refusedSoon(t, first.body.access_token)).toBe(true);
  });

  it('revocation (RFC 7009) of an access token stops it; another app cannot revoke it', async () => {
    const app = await registerApp(t);
    const tokens = await tokensFor(app);
    const revoke = (by: RegisteredApp) =>
      fetch(`${t.url}/external/v1/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: tokens.access_token,
          client_id: by.clientId,
          client_secret: by.clientSecret!,
        }).toString(),
      });
    expect((await revoke(await registerApp(t))).status).toBe(200); // as RFC 7009 has it: no hint
    await new Promise((r) => setTimeout(r, 1500)); // past the credential cache's bound
    expect(await restStatus(t, tokens.access_token)).toBe(200);
    expect((await revoke(app)).status).toBe(200);
    expect(await refusedSoon(t, tokens.access_token)).toBe(true);
  });

  it('the user revokes the app through GraphQL: it leaves their list, its tokens stop, its refresh token too', async () => {
    const app = await registerApp(t);
    const tokens = await tokensFor(app);
    const tomKey = keyOf('team admin (Sales)');
    const list = async () =>
      (await t.graphql('{ viewer { appAuthorizations { id clientId appName } } }', {}, tomKey)).body.data
        .viewer.appAuthorizations as { id: string; clientId: string; appName: string }[];
    const mine = (await list()).find((a) => a.clientId === app.clientId)!;
    expect(mine.appName).toBe('Test app confidential');
    const revoked = await t.graphql(
      'mutation($id: ID!) { revokeAppAuthorization(id: $id) { clientId } }',
      { id: mine.id },
      tomKey,
    );
    expect(revoked.body.data.revokeAppAuthorization.clientId).toBe(app.clientId);
    expect((await list()).map((a) => a.clientId)).not.toContain(app.clientId);
    expect(await refusedSoon(t, tokens.access_token)).toBe(true);
    const refreshed = await token(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: app.clientId,
      client_secret: app.clientSecret!,
    });
    expect(refreshed.status).toBe(400);
  });

  it('an account admin sees and revokes their users’ authorizations; nobody else’s', async () => {
    const app = await registerApp(t);
    await tokensFor(app);
    const ofTom = `{ users(first: 100) { edges { node { email appAuthorizations { id clientId } } } } }`;
    const users = await t.graphql(ofTom, {}, admin);
    const tomNode = users.body.data.users.edges.find((e: any) => e.node.email === tom).node;
    const grant = tomNode.appAuthorizations.find((a: { clientId: string }) => a.clientId === app.clientId);
    expect(grant).toBeDefined();
    const outsider = await t.graphql(
      'mutation($id: ID!) { revokeAppAuthorization(id: $id) { clientId } }',
      { id: grant.id },
      keyOf('external user (Globex)'),
    );
    expect(outsider.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const byAdmin = await t.graphql(
      'mutation($id: ID!) { revokeAppAuthorization(id: $id) { clientId } }',
      { id: grant.id },
      admin,
    );
    expect(byAdmin.body.data.revokeAppAuthorization.clientId).toBe(app.clientId);
  });

  it('deleting the app stops its tokens', async () => {
    const app = await registerApp(t);
    const tokens = await tokensFor(app);
    const deleted = await t.graphql(
      'mutation($c: String!) { deleteApp(clientId: $c) { clientId } }',
      { c: app.clientId },
      admin,
    );
    expect(deleted.body.data.deleteApp.clientId).toBe(app.clientId);
    expect(await refusedSoon(t, tokens.access_token)).toBe(true);
  });
});

describe('apps through GraphQL', () => {
  it('account admins only, with an API key; redirect URIs are https or loopback http, without fragments', async () => {
    const register = (key: string, redirectUris: string[]) =>
      t.graphql(
        'mutation($i: RegisterAppInput!) { registerApp(input: $i) { app { clientId } } }',
        { i: { name: 'x', redirectUris, kind: 'CONFIDENTIAL' } },
        key,
      );
    expect(
      (await register(keyOf('member: team view'), [REDIRECT_URI])).body.errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
    expect(
      (await register(`Bearer ${keyOf('connected app (Tom)')}`, [REDIRECT_URI])).body.errors?.[0]?.extensions
        ?.code,
    ).toBe('FORBIDDEN');
    for (const bad of [
      'http://app.example/cb',
      'https://app.example/cb#x',
      'not a url',
      'ftp://app.example/',
    ])
      expect((await register(admin, [bad])).body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await register(admin, ['http://127.0.0.1:8080/cb'])).body.errors).toBeUndefined();
  });

  it('a rotated secret replaces the old one at once', async () => {
    const app = await registerApp(t);
    const rotated = await t.graphql(
      'mutation($c: String!) { rotateAppSecret(clientId: $c) { clientSecret app { secretRotatedAt } } }',
      { c: app.clientId },
      admin,
    );
    const fresh = rotated.body.data.rotateAppSecret.clientSecret as string;
    expect(fresh).not.toBe(app.clientSecret);
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom });
    const code = redirect.searchParams.get('code')!;
    const old = await exchange(t, app, code);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await exchange(t, { ...app, clientSecret: fresh }, code)).status).toBe(200);
  });
});

describe('refused requests', () => {
  it('an unknown app, or a redirect URI it did not register, gets an error page, never a redirect', async () => {
    const app = await registerApp(t);
    const browser = new Browser(t);
    for (const [clientId, redirectUri] of [
      ['mga_unknown', REDIRECT_URI],
      [app.clientId, 'https://evil.example/callback'],
      [app.clientId, `${REDIRECT_URI}/../other`],
    ]) {
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId!,
        redirect_uri: redirectUri!,
      });
      const res = await browser.go(`/external/v1/oauth2/authorize?${q}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).toContain('refused');
    }
  });

  it('a scope other than public_api is invalid_scope; none means public_api', async () => {
    const app = await registerApp(t);
    for (const scope of ['public_api admin', 'openid']) {
      const { redirect } = await authorize(t, { clientId: app.clientId, email: tom, scope });
      expect(redirect.searchParams.get('error')).toBe('invalid_scope');
    }
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom });
    expect((await exchange(t, app, redirect.searchParams.get('code')!)).body.scope).toBe('public_api');
  });

  it('a wrong secret is invalid_client (401); a consent form posted from another site is refused', async () => {
    const app = await registerApp(t);
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom });
    const wrong = await exchange(
      t,
      { ...app, clientSecret: 'mgs_wrong' },
      redirect.searchParams.get('code')!,
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');

    const other = await registerApp(t);
    const browser = new Browser(t);
    const consent = await consentFormOf(browser, other.clientId);
    expect(consent).toMatch(/\/consent$/);
    const forged = await browser.post(consent, { decision: 'allow' }, 'https://evil.example');
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('a consent form posted again once the sign-in ended is refused, and nothing more is granted', async () => {
    const app = await registerApp(t);
    const browser = new Browser(t);
    const consent = await consentFormOf(browser, app.clientId);
    const allowed = await browser.post(consent, { decision: 'allow' });
    const resumed = await browser.go(allowed.headers.get('location')!); // back to the authorization request
    expect(new URL(resumed.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const replayed = await browser.post(consent, { decision: 'allow' });
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('location')).toBeNull();
    expect(await replayed.text()).toContain('This sign-in has ended');
    const grants = await t.app.database.collections.oauth.countDocuments({
      model: 'Grant',
      clientId: app.clientId,
    });
    expect(grants).toBe(1);
  });

  it('an expired code is invalid_grant', async () => {
    const app = await registerApp(t);
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom });
    // Eleven minutes later, by the clock the authorization server reads (codes live ten).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 11 * 60_000);
      const late = await exchange(t, app, redirect.searchParams.get('code')!);
      expect(late.status).toBe(400);
      expect(late.body.error).toBe('invalid_grant');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a refresh token of another app is invalid_grant, and stays its own app’s to use', async () => {
    const mine = await registerApp(t);
    const theirs = await registerApp(t);
    const tokens = await tokensFor(mine);
    const refreshAs = (app: RegisteredApp) =>
      token(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      });
    const stolen = await refreshAs(theirs);
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await refreshAs(mine)).status).toBe(200);
  });

  it('a deactivated user cannot sign in', async () => {
    const app = await registerApp(t);
    const browser = new Browser(t);
    let res = await browser.startAuthorization(app.clientId);
    res = await browser.go(res.headers.get('location')!);
    const page = await res.text();
    expect(page).toContain('Demo sign-in');
    const deactivated = 'dana.fischer@acme.test';
    expect(page).not.toContain(deactivated);
    res = await browser.post(formAction(page), { email: deactivated });
    expect(res.status).toBe(403);
  });
});

describe('the token endpoint’s limit', () => {
  it('answers 60 requests a minute per app, then 429 with Retry-After and the RateLimit headers', async () => {
    const app = await registerApp(t);
    const other = await registerApp(t);
    const attempt = (a: RegisteredApp) =>
      token(t, {
        grant_type: 'refresh_token',
        refresh_token: 'not-a-token',
        client_id: a.clientId,
        client_secret: a.clientSecret!,
      });
    // The window is the clock's minute: not started in its last seconds, the 61 fall in one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const answers = [];
    for (let i = 0; i < 61; i++) answers.push(await attempt(app));
    expect(answers.slice(0, 60).map((a) => a.status)).toEqual(Array(60).fill(400));
    expect(answers[59]!.headers.get('ratelimit-remaining')).toBe('0');
    const refused = answers[60]!;
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('too_many_requests');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('60');
    // Another app is counted on its own.
    expect((await attempt(other)).status).toBe(400);
  });
});

describe('self-registration (RFC 7591)', () => {
  const register = (body: object) =>
    fetch(`${t.url}/external/v1/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('registers public clients only, with the redirect URI rules of every app', async () => {
    const made = await register({
      client_name: 'An MCP client',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      token_endpoint_auth_method: 'none',
    });
    expect(made.status).toBe(201);
    const client = (await made.json()) as { client_id: string; client_secret?: string };
    expect(client.client_id).toMatch(/^mga_/);
    expect(client.client_secret).toBeUndefined();

    const confidential = await register({
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(confidential.status).toBe(400);
    const plainHttp = await register({
      redirect_uris: ['http://app.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(plainHttp.status).toBe(400);
    expect(((await plainHttp.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });
});

describe('storage', () => {
  it('holds no token, code or secret in clear', async () => {
    const app = await registerApp(t);
    const { redirect } = await authorize(t, { clientId: app.clientId, email: tom });
    const code = redirect.searchParams.get('code')!;
    const tokens = (await exchange(t, app, code)).body;
    const db = t.app.database.collections;
    const dump = JSON.stringify(
      await Promise.all(
        (['credentials', 'oauth', 'apps'] as const).map((name) => (db[name] as any).find({}).toArray()),
      ),
    );
    for (const secret of [tokens.access_token, tokens.refresh_token, code, app.clientSecret!])
      expect(dump).not.toContain(secret);
  });
});

describe('logs', () => {
  it('never hold a token, a code or a secret, through a whole flow at debug level', async () => {
    const { lines, sink } = logLines();
    const logged = await startTestApp({}, sink);
    try {
      const app = await registerApp(logged);
      const { redirect } = await authorize(logged, { clientId: app.clientId, email: tom });
      const code = redirect.searchParams.get('code')!;
      const tokens = (await exchange(logged, app, code)).body;
      const basic = { clientId: app.clientId, clientSecret: app.clientSecret! };
      const refreshed = (
        await token(logged, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, basic)
      ).body;
      expect(await restStatus(logged, refreshed.access_token)).toBe(200);
      await exchange(logged, app, code); // a code used twice: refused, and logged as such
      await new Promise((resolve) => setTimeout(resolve, 200));
      const log = JSON.stringify(lines);
      expect(lines.some((l) => l.route === '/external/v1/oauth2/')).toBe(true);
      for (const secret of [
        code,
        tokens.access_token,
        tokens.refresh_token,
        refreshed.access_token,
        refreshed.refresh_token,
        app.clientSecret!,
      ])
        expect(log).not.toContain(secret);
    } finally {
      await logged.close();
    }
  });
});
