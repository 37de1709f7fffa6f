/**
 * An MCP client nobody here wrote, from nothing: the official client (Client, its Streamable HTTP
 * transport and its OAuth machinery) is given only the door's URL and an OAuth client provider.
 * It meets the 401, reads the protected-resource metadata (RFC 9728) and the authorization
 * server's (RFC 8414), registers itself as a public client (RFC 7591), sends the person to the
 * authorization page, which they complete in headless Chromium (demo sign-in, consent), exchanges
 * the code with PKCE for a token bound to the door (RFC 8707), then lists the tools and calls every
 * one of them. Two people with different visibility do this; each answer is compared with what the
 * REST door answers the same person.
 */
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';
import { testBrowser } from '../support/browser.js';

const REDIRECT_URI = 'http://127.0.0.1:7777/mcp-callback';

let t: TestApp;
const browser = testBrowser();

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await browser.close();
  await t.close();
});

/** What an MCP client keeps (in memory here): its registration, its tokens, its PKCE verifier. */
class InMemoryProvider implements OAuthClientProvider {
  registered: OAuthClientInformationMixed | undefined;
  issued: OAuthTokens | undefined;
  verifier = '';
  /** Where the client would send the person: the test opens it in the browser. */
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.registered;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registered = info;
  }
  tokens() {
    return this.issued;
  }
  saveTokens(tokens: OAuthTokens) {
    this.issued = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The person at the authorization page: signs in as `email`, allows; the callback it lands on. */
async function authorizeInBrowser(url: URL, email: string): Promise<URL> {
  const { page } = await browser.open(t.url);
  let landed: URL | undefined;
  await page.route(
    (target) => target.href.startsWith(REDIRECT_URI),
    async (route) => {
      landed = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Connected.</p>' });
    },
  );
  await page.goto(url.href);
  await page.getByRole('button', { name: email }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((target) => target.href.startsWith(REDIRECT_URI));
  await page.close();
  return landed!;
}

/** An agent that starts knowing only the door's URL, authorized by `email` through the pages. */
async function connectAs(email: string): Promise<{ client: Client; provider: InMemoryProvider }> {
  const provider = new InMemoryProvider();
  const door = new URL(`${t.url}/mcp`);
  const first = new StreamableHTTPClientTransport(door, { authProvider: provider });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.registered?.client_id).toMatch(/^mga_/); // registered itself (RFC 7591)
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${t.url}/external/v1/oauth2/authorize`);
  expect(authorizationUrl.searchParams.get('resource')).toBe(`${t.url}/mcp`);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

  const landed = await authorizeInBrowser(authorizationUrl, email);
  await first.finishAuth(landed.searchParams);
  expect(provider.issued?.access_token).toBeTruthy();
  const connected = new Client({ name: 'test-agent', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(door, { authProvider: provider }));
  return { client: connected, provider };
}

async function rest(key: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}/external/v1${path}`, { headers: authHeaders(key) });
  return { status: res.status, body: await res.json() };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]?.text;
  return result.isError ? { error: text } : (result.structuredContent as any);
}

describe.each([
  { email: 'alice.moreau@acme.test', persona: 'account admin' },
  { email: 'sam.rivera@acme.test', persona: 'member: own meetings + CRM' },
])('$email, as an agent authorized through OAuth', ({ email, persona }) => {
  const key = keyOf(persona);

  it('discovers, registers, is authorized in the browser, and every tool answers as REST does', async () => {
    const { client, provider } = await connectAs(email);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBe(9);

      // The token is bound to the MCP door: the REST door refuses it.
      expect((await rest(`Bearer ${provider.issued!.access_token}`, '/teams')).status).toBe(401);

      expect((await call(client, 'get_identity')).email).toBe(email);
      for (const [tool, path] of [
        ['list_teams', '/teams'],
        ['list_team_members', '/team_members'],
        ['list_meeting_types', '/meeting_types'],
        ['list_meetings', '/meetings'],
      ] as const)
        expect(await call(client, tool, { limit: 100 }), tool).toEqual(
          (await rest(key, `${path}?limit=100`)).body,
        );

      const all = await t.app.database.collections.meetings
        .find({}, { projection: { recordingId: 1 } })
        .toArray();
      const statuses = new Set<number>();
      for (const { recordingId } of all.filter((_, i) => i % 12 === 0))
        for (const kind of ['transcript', 'summary'] as const) {
          const byRest = await rest(key, `/recordings/${recordingId}/${kind}`);
          const byTool = await call(client, `get_meeting_${kind}`, { recording_id: recordingId });
          expect(byTool, `${kind} of ${recordingId}`).toEqual(
            byRest.status === 200 ? byRest.body : { error: byRest.body.error },
          );
          expect((await call(client, 'get_meeting', { recording_id: recordingId })).error !== undefined).toBe(
            byRest.status === 404,
          );
          statuses.add(byRest.status);
        }
      expect([...statuses].sort()).toEqual([200, 404]);

      // Search with the moments it matched: an agent's token may, where an app's on REST may not.
      const found = await call(client, 'search_meetings', { query: 'pricing', limit: 100 });
      expect(found.items.length).toBeGreaterThan(0);
      expect(found.items.every((item: { matches: unknown[] }) => item.matches.length > 0)).toBe(true);
      for (const { meeting } of found.items)
        expect((await rest(key, `/recordings/${meeting.recording_id}/summary`)).status).toBe(200);

      // The person sees the agent among the apps they authorized, revokes it, and it is shut out.
      const listed = await t.graphql('{ viewer { appAuthorizations { id clientId } } }', {}, key);
      const agentGrant = listed.body.data.viewer.appAuthorizations.find(
        (a: { clientId: string }) => a.clientId === provider.registered!.client_id,
      );
      expect(agentGrant).toBeDefined();
      await t.graphql(
        'mutation($id: ID!) { revokeAppAuthorization(id: $id) { id } }',
        { id: agentGrant.id },
        key,
      );
      await new Promise((r) => setTimeout(r, 1500)); // the credential cache's bound
      const refused = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.issued!.access_token}` },
        body: '{}',
      });
      expect(refused.status).toBe(401);
    } finally {
      await client.close();
    }
  });
});
