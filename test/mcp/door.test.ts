/**
 * The MCP door as an agent meets it through the official MCP client (Client and its Streamable
 * HTTP transport): the tools it lists, each tool's answer against the REST door's for the same
 * persona, refusals an agent can act on, and the door's protection (RFC 9728 metadata, the 401
 * challenge, tokens bound to their door by RFC 8707).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authHeaders, keyOf, startTestApp, type TestApp } from '../support/app.js';
import { messageOf, postMcp } from '../support/mcp.js';
import { authorize, exchange, registerApp } from '../support/oauth.js';

let t: TestApp;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

/** The official client, connected to /mcp with `credential` (an API key, or `Bearer <token>`). */
async function agent(credential: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: authHeaders(credential) },
    }),
  );
  clients.push(client);
  return client;
}

async function rest(credential: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}/external/v1${path}`, { headers: authHeaders(credential) });
  return { status: res.status, body: await res.json() };
}

/** A tool's answer: its structured content, or its refusal's text. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
  return result.isError ? { error: text } : { content: result.structuredContent as any, text };
}

/** A JSON-RPC message POSTed as a client of `version` sends it, with the demo account admin's key. */
const postAsAdmin = (message: unknown, version?: string) =>
  postMcp(t.url, keyOf('account admin'), message, version);

async function tokenFor(email: string, resource?: string): Promise<string> {
  const app = await registerApp(t);
  const { redirect } = await authorize(t, { clientId: app.clientId, email, resource });
  const answer = await exchange(t, app, redirect.searchParams.get('code')!, resource ? { resource } : {});
  expect(answer.status).toBe(200);
  return `Bearer ${answer.body.access_token}`;
}

describe('tools', () => {
  it('lists every tool with a description, an input schema and an output schema', async () => {
    const { tools } = await (await agent(keyOf('account admin'))).listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_identity',
      'get_meeting',
      'get_meeting_summary',
      'get_meeting_transcript',
      'list_meeting_types',
      'list_meetings',
      'list_team_members',
      'list_teams',
      'search_meetings',
    ]);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(30);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const listMeetings = tools.find((tool) => tool.name === 'list_meetings')!;
    expect(Object.keys(listMeetings.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['cursor', 'limit', 'created_after', 'recorded_by', 'teams']),
    );
    expect(Object.keys(listMeetings.inputSchema.properties ?? {})).not.toContain('include_transcript');
  });

  // Two personas who see different meetings: the account admin (all of Acme) and a member who sees
  // only their own and what is shared with them.
  describe.each(['account admin', 'member: own meetings + CRM'])('as the %s', (persona) => {
    const key = keyOf(persona);

    it('answers each list as the REST door does, page after page', async () => {
      const client = await agent(key);
      for (const [tool, path] of [
        ['list_teams', '/teams'],
        ['list_team_members', '/team_members'],
        ['list_meeting_types', '/meeting_types'],
        ['list_meetings', '/meetings'],
      ] as const) {
        let cursor: string | undefined;
        do {
          const byTool = await call(client, tool, { limit: 7, ...(cursor ? { cursor } : {}) });
          const byRest = await rest(key, `${path}?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
          expect(byRest.status).toBe(200);
          expect(byTool.content, `${tool} ${cursor ?? ''}`).toEqual(byRest.body);
          cursor = byRest.body.next_cursor ?? undefined;
        } while (cursor);
      }
      const filtered = await call(client, 'list_meetings', { teams: ['Sales'], limit: 100 });
      expect(filtered.content).toEqual((await rest(key, '/meetings?teams[]=Sales&limit=100')).body);
    });

    it('answers a recording’s transcript and summary as the REST door does, and "not found" alike', async () => {
      const client = await agent(key);
      const all = await t.app.database.collections.meetings
        .find({}, { projection: { recordingId: 1 } })
        .toArray();
      const seen = new Set<number>();
      for (const { recordingId } of all.filter((_, i) => i % 8 === 0))
        for (const kind of ['transcript', 'summary'] as const) {
          const byRest = await rest(key, `/recordings/${recordingId}/${kind}`);
          const byTool = await call(client, `get_meeting_${kind}`, { recording_id: recordingId });
          if (byRest.status === 200) {
            expect(byTool.content).toEqual(byRest.body);
            seen.add(recordingId);
          } else {
            expect(byRest.status).toBe(404);
            expect(byTool).toEqual({ error: byRest.body.error });
          }
        }
      expect(seen.size).toBeGreaterThan(0);
      expect(seen.size).toBeLessThan(Math.ceil(all.length / 8));
    });

    it('names who it acts for, finds each meeting as the list shows it, and searches what they may see', async () => {
      const client = await agent(key);
      const viewer = (await t.graphql('{ viewer { name email } }', {}, key)).body.data.viewer;
      expect((await call(client, 'get_identity', {})).content).toMatchObject(viewer);

      const listed: { recording_id: number }[] = [];
      for (let cursor = ''; ; ) {
        const page = (await rest(key, `/meetings?limit=100${cursor}`)).body;
        listed.push(...page.items);
        if (!page.next_cursor) break;
        cursor = `&cursor=${page.next_cursor}`;
      }
      for (const meeting of listed.slice(0, 15))
        expect((await call(client, 'get_meeting', { recording_id: meeting.recording_id })).content).toEqual(
          meeting,
        );
      const everyone = await t.app.database.collections.meetings
        .find({}, { projection: { recordingId: 1 } })
        .toArray();
      // Not every meeting one may read is listed (another organisation's, unless recorded_by[] names
      // its recorder): what the REST door answers for a recording says whether it may be seen.
      for (const { recordingId } of everyone.filter((_, i) => i % 10 === 0)) {
        const summary = await rest(key, `/recordings/${recordingId}/summary`);
        const meeting = await call(client, 'get_meeting', { recording_id: recordingId });
        if (summary.status === 404) expect(meeting).toEqual({ error: summary.body.error });
        else expect(meeting.content.recording_id).toBe(recordingId);
      }

      const found = (await call(client, 'search_meetings', { query: 'pricing', limit: 100, matches: 2 }))
        .content;
      const byGraphQL = await t.graphql(
        `{ meetings(first: 100, filter: { search: "pricing" }, orderBy: RELEVANCE) {
             edges { matches(first: 2) { snippet speaker timestamp } node { recordingId } } } }`,
        {},
        key,
      );
      const edges = byGraphQL.body.data.meetings.edges as {
        matches: unknown[];
        node: { recordingId: number };
      }[];
      expect(edges.length).toBeGreaterThan(0);
      expect(found.items.map((i: any) => i.meeting.recording_id)).toEqual(
        edges.map((e) => e.node.recordingId),
      );
      expect(found.items.map((i: any) => i.matches.map(({ field: _, ...m }: any) => m))).toEqual(
        edges.map((e) => e.matches),
      );
    });
  });

  it('writes a transcript as readable lines and a summary as its Markdown', async () => {
    const client = await agent(keyOf('account admin'));
    const { items } = (await call(client, 'list_meetings', { limit: 1 })).content;
    const id = items[0].recording_id;
    const transcript = await call(client, 'get_meeting_transcript', { recording_id: id });
    const first = transcript.content.transcript[0];
    expect(transcript.text?.split('\n')[0]).toBe(
      `[${first.timestamp}] ${first.speaker.display_name}: ${first.text}`,
    );
    const summary = await call(client, 'get_meeting_summary', { recording_id: id });
    expect(summary.text).toBe(summary.content.summary.markdown_formatted);
  });
});

describe('refusals', () => {
  it('an unknown tool, or arguments its schema refuses, are errors naming what is wrong', async () => {
    const client = await agent(keyOf('account admin'));
    const unknown = await client
      .callTool({ name: 'delete_everything', arguments: {} })
      .catch((e: Error) => e);
    expect(String(unknown)).toMatch(/delete_everything/);
    const bad = await client
      .callTool({ name: 'list_meetings', arguments: { limit: 1000 } })
      .catch((e: Error) => e);
    expect(JSON.stringify(bad)).toMatch(/limit/);
    const notANumber = await client
      .callTool({ name: 'get_meeting_summary', arguments: { recording_id: 'abc' } })
      .catch((e: Error) => e);
    expect(JSON.stringify(notANumber)).toMatch(/recording_id/);
  });

  it('a cursor of another list is refused with the REST door’s message', async () => {
    const client = await agent(keyOf('account admin'));
    const { next_cursor } = (await call(client, 'list_teams', { limit: 1 })).content;
    const mixed = await call(client, 'list_meetings', { cursor: next_cursor });
    expect(mixed).toEqual({
      error: (await rest(keyOf('account admin'), `/meetings?cursor=${next_cursor}`)).body.error,
    });
  });

  it('counts content against the heavy limit as the REST door does: a refusal that says when to retry', async () => {
    const c = await startTestApp({ RATE_LIMIT_HEAVY: '2' });
    try {
      const client = new Client({ name: 'test-agent', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${c.url}/mcp`), {
          requestInit: { headers: authHeaders(keyOf('account admin')) },
        }),
      );
      const { items } = (await call(client, 'list_meetings', { limit: 1 })).content;
      const read = () => call(client, 'get_meeting_transcript', { recording_id: items[0].recording_id });
      expect((await read()).content).toBeDefined();
      expect((await read()).content).toBeDefined();
      const third = await read();
      expect(third.error).toMatch(/retry in \d+ s/);
      // The lists are in the general bucket: still answered.
      expect((await call(client, 'list_teams', {})).content).toBeDefined();
      await client.close();
    } finally {
      await c.close();
    }
  });

  it('a body over the limit is 413, before anything runs', async () => {
    const res = await postAsAdmin([
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(300_000) } },
    ]);
    expect(res.status).toBe(413);
    expect((await res.json()).error).toMatch(/at most/);
  });
});

describe('clients of the 2025 revisions', () => {
  /** A JSON-RPC request as a 2025 client posts it (statelessly: no session), and its answer's message. */
  async function post(version: string, message: Record<string, unknown>) {
    const res = await postAsAdmin({ jsonrpc: '2.0', id: 1, ...message }, version);
    expect(res.status).toBe(200);
    return (await messageOf(res)) as { result: any };
  }

  it.each([
    '2025-06-18',
    '2025-11-25',
  ])('%s: initialize, then a tool call standing alone', async (version) => {
    const initialized = await post(version, {
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old-agent', version: '1' } },
    });
    expect(initialized.result.protocolVersion).toBe(version);
    expect(initialized.result.capabilities.tools).toBeDefined();
    const called = await post(version, {
      method: 'tools/call',
      params: { name: 'list_teams', arguments: {} },
    });
    expect(called.result.structuredContent).toEqual((await rest(keyOf('account admin'), '/teams')).body);
  });
});

describe('protection', () => {
  it('refuses an expired token with the challenge, so the client refreshes it', async () => {
    const token = await tokenFor('tom.baker@acme.test', `${t.url}/mcp`);
    // Two hours on, by the clock the credential's expiry is read against (tokens live one).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2 * 3600_000);
      const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: authHeaders(token), body: '{}' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('describes itself as a protected resource (RFC 9728), under both well-known paths', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: `${t.url}/mcp`,
        authorization_servers: [t.url],
        scopes_supported: ['public_api'],
      });
    }
    const server = await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json();
    expect(server.issuer).toBe(t.url);
  });

  it('answers 401 with the challenge naming the metadata, without a credential or with a bad one', async () => {
    const bare = await fetch(`${t.url}/mcp`, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", scope="public_api"`,
    );
    const forged = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer mct_not_a_token_at_all_0000000000' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata=/,
    );
  });

  it('takes a token issued for it (resource=/mcp), which REST and GraphQL refuse; refuses theirs', async () => {
    const forMcp = await tokenFor('tom.baker@acme.test', `${t.url}/mcp`);
    const client = await agent(forMcp);
    const byTool = await call(client, 'list_teams', {});
    expect(byTool.content).toEqual((await rest(keyOf('team admin (Sales)'), '/teams')).body);
    expect((await rest(forMcp, '/teams')).status).toBe(401);
    expect((await rest(forMcp, '/teams')).body.error).toMatch(/issued for the MCP door/);
    expect((await t.graphql('{ viewer { email } }', {}, forMcp)).status).toBe(401);

    const forRest = await tokenFor('tom.baker@acme.test');
    expect((await rest(forRest, '/teams')).status).toBe(200);
    const refused = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: authHeaders(forRest),
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect((await refused.json()).error).toMatch(/resource=/);
  });

  it('lets a browser-based client of CORS_ORIGINS in (preflight, the challenge readable), no other site', async () => {
    const inspector = 'https://inspector.example';
    const c = await startTestApp({ CORS_ORIGINS: inspector });
    try {
      const preflight = await fetch(`${c.url}/mcp`, {
        method: 'OPTIONS',
        headers: { origin: inspector, 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(inspector);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(
        /authorization.*mcp-protocol-version/,
      );
      const challenged = await fetch(`${c.url}/mcp`, {
        method: 'POST',
        headers: { origin: inspector },
        body: '{}',
      });
      expect(challenged.status).toBe(401);
      expect(challenged.headers.get('access-control-allow-origin')).toBe(inspector);
      expect(challenged.headers.get('access-control-expose-headers')).toMatch(/www-authenticate/);
      const metadata = await fetch(`${c.url}/.well-known/oauth-protected-resource/mcp`, {
        headers: { origin: inspector },
      });
      expect(metadata.headers.get('access-control-allow-origin')).toBe('*');
      const other = await fetch(`${c.url}/mcp`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example' },
      });
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await c.close();
    }
  });

  it('refuses a page of another site (DNS rebinding)', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...authHeaders(keyOf('account admin')), origin: 'https://evil.example' },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });
});
