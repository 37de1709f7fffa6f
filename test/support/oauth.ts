/**
 * An OAuth client and a person's browser, over plain HTTP: registers apps through GraphQL, follows
 * an authorization request through the service's sign-in and consent pages as a browser would
 * (cookies kept, forms posted from the page's origin), and calls the token endpoint.
 */
import { createHash, randomBytes } from 'node:crypto';
import { authHeaders, keyOf } from './app.js';

/** Where the service answers: a test app, or a process the bench started. */
export interface Service {
  url: string;
}

export const REDIRECT_URI = 'https://app.example/callback';

export interface RegisteredApp {
  clientId: string;
  clientSecret: string | null;
}

/** Registers an app as the demo account admin (or `asKey`). */
export async function registerApp(
  t: Service,
  kind: 'CONFIDENTIAL' | 'PUBLIC' = 'CONFIDENTIAL',
  redirectUris = [REDIRECT_URI],
  asKey = keyOf('account admin'),
): Promise<RegisteredApp> {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(asKey) },
    body: JSON.stringify({
      query: 'mutation($i: RegisterAppInput!) { registerApp(input: $i) { clientSecret app { clientId } } }',
      variables: { i: { name: `Test app ${kind.toLowerCase()}`, redirectUris, kind } },
    }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown[] };
  if (body.errors) throw new Error(`registerApp failed: ${JSON.stringify(body.errors)}`);
  const { clientSecret, app } = body.data.registerApp;
  return { clientId: app.clientId, clientSecret };
}

/** A PKCE pair (S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser: it keeps each host's cookies (as browsers do, whatever the port) and follows nothing by itself. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  constructor(private readonly t: Service) {}

  async go(
    url: string | URL,
    init: RequestInit & { headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const target = new URL(url, this.t.url);
    const jar = this.jars.get(target.hostname) ?? new Map<string, string>();
    this.jars.set(target.hostname, jar);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(target, {
      redirect: 'manual',
      ...init,
      headers: { ...(cookie ? { cookie } : {}), ...init.headers },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }

  /** Opens an authorization request of `clientId` (a code, to the test's redirect URI). */
  startAuthorization(clientId: string): Promise<Response> {
    const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI });
    return this.go(`/external/v1/oauth2/authorize?${q}`);
  }

  /** Posts a form from the service's own page (its origin), as a browser submitting it would. */
  post(action: string, form: Record<string, string>, origin = this.t.url): Promise<Response> {
    return this.go(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams(form).toString(),
    });
  }
}

export interface AuthorizeOptions {
  clientId: string;
  /** Who signs in on the demo page. */
  email: string;
  redirectUri?: string;
  scope?: string;
  /** RFC 8707: the resource the token is for (the MCP door's URL); none: REST and GraphQL. */
  resource?: string;
  state?: string;
  challenge?: string;
  /** What the person answers on the consent page. */
  decision?: 'allow' | 'deny';
  browser?: Browser;
}

export interface Authorized {
  /** Where the browser was sent back to the app. */
  redirect: URL;
  /** The pages shown on the way, by kind. */
  pages: ('login' | 'consent')[];
  browser: Browser;
}

/** The form action of a page (sign-in or consent). */
export function formAction(page: string): string {
  const match = /<form method="post" action="([^"]+)"/.exec(page);
  if (!match) throw new Error(`no form on the page:\n${page}`);
  return match[1]!.replaceAll('&amp;', '&');
}

/** Runs an authorization request to its end: signs in and answers consent when asked. */
export async function authorize(t: Service, o: AuthorizeOptions): Promise<Authorized> {
  const browser = o.browser ?? new Browser(t);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: o.clientId,
    redirect_uri: o.redirectUri ?? REDIRECT_URI,
    state: o.state ?? 'state-1',
  });
  if (o.scope !== undefined) query.set('scope', o.scope);
  if (o.resource !== undefined) query.set('resource', o.resource);
  if (o.challenge) {
    query.set('code_challenge', o.challenge);
    query.set('code_challenge_method', 'S256');
  }
  const pages: Authorized['pages'] = [];
  let res = await browser.go(`/external/v1/oauth2/authorize?${query}`);
  for (let step = 0; step < 10; step++) {
    if (res.status === 200) {
      const action = formAction(await res.text());
      if (action.endsWith('/login')) {
        pages.push('login');
        res = await browser.post(action, { email: o.email });
      } else {
        pages.push('consent');
        res = await browser.post(action, { decision: o.decision ?? 'allow' });
      }
      continue;
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location)
      throw new Error(`authorization stopped at ${res.status}: ${await res.text()}`);
    const next = new URL(location, t.url);
    if (next.origin !== new URL(t.url).origin) return { redirect: next, pages, browser };
    res = await browser.go(next);
  }
  throw new Error('authorization did not end within 10 steps');
}

export interface TokenAnswer {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

/** POSTs to the token endpoint (form-encoded); `basic` sends the client's credentials as HTTP Basic. */
export async function token(
  t: Service,
  form: Record<string, string>,
  basic?: { clientId: string; clientSecret: string },
): Promise<TokenAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.clientId)}:${encodeURIComponent(basic.clientSecret)}`).toString('base64')}`;
  const res = await fetch(`${t.url}/external/v1/oauth2/token`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

/** Exchanges a code for tokens as a confidential app (secret in the form, as the SDK sends it). */
export function exchange(t: Service, app: RegisteredApp, code: string, extra: Record<string, string> = {}) {
  return token(t, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: app.clientId,
    ...(app.clientSecret ? { client_secret: app.clientSecret } : {}),
    ...extra,
  });
}

/** The status of GET /external/v1/meetings with a bearer token. */
export async function restStatus(t: Service, accessToken: string, query = ''): Promise<number> {
  const res = await fetch(`${t.url}/external/v1/meetings${query}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  await res.arrayBuffer();
  return res.status;
}

/** Waits (up to 5 s) for a token to be refused: revocation shows within the credential cache's bound. */
export async function refusedSoon(t: Service, accessToken: string): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < 5000; ) {
    if ((await restStatus(t, accessToken)) === 401) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
