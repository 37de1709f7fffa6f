/**
 * examples/typed-client: its generated code is what the client preset makes from schema.graphql and
 * the documents (not stale), and the client runs against the service with typed results.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, GraphQLRequestError } from '../../examples/typed-client/client.js';
import { generatedClientFiles, generatedFolder } from '../../examples/typed-client/codegen.js';
import { meetingPage, meetingsWithSummaries } from '../../examples/typed-client/meetings.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { exitOf, outputOf } from '../support/processes.js';

describe('examples/typed-client/generated', () => {
  it('is what the client preset generates from schema.graphql and the documents (run `npm run examples:codegen` after changing either)', async () => {
    const files = await generatedClientFiles();
    expect(readdirSync(generatedFolder).sort()).toEqual(
      files.map((f) => f.path.replace(generatedFolder, '')).sort(),
    );
    for (const { path, content } of files) expect(readFileSync(path, 'utf8'), `stale: ${path}`).toBe(content);
  }, 60_000);
});

describe('the typed client against the service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('reads pages of meetings with their summaries and action items, typed as the document selects', async () => {
    const client = createClient(t.url, keyOf('account admin'));
    const first = await meetingPage(client, 10);
    expectTypeOf(first.meetings[0]!.defaultSummary).toEqualTypeOf<{
      templateName: string;
      markdownFormatted: string;
    } | null>();
    expectTypeOf(first.meetings[0]!.recordingId).toEqualTypeOf<number>();
    expect(first.meetings).toHaveLength(10);
    expect(first.meetings.some((m) => m.defaultSummary?.markdownFormatted.startsWith('## '))).toBe(true);
    expect(first.meetings.some((m) => m.actionItems.length > 0)).toBe(true);
    expect(first.next).toEqual(expect.any(String));

    const second = await meetingPage(client, 10, first.next);
    const ids = (page: typeof first) => page.meetings.map((m) => m.recordingId);
    expect(ids(second)).toHaveLength(10);
    expect(ids(second).filter((id) => ids(first).includes(id))).toEqual([]);
  });

  it('sends the same answer GraphQL gives the document', async () => {
    const key = keyOf('account admin');
    const viaClient = await createClient(t.url, key).request(meetingsWithSummaries, { first: 3 });
    const direct = await t.graphql(meetingsWithSummaries.toString(), { first: 3 }, key);
    expect(viaClient).toEqual(direct.body.data);
  });

  it('throws the error code and HTTP status of a refused request', async () => {
    const client = createClient(t.url, 'mk_not_a_key');
    const error = await meetingPage(client, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphQLRequestError);
    expect((error as GraphQLRequestError).status).toBe(401);
    expect((error as GraphQLRequestError).errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('runs as docs/api/examples.md says and prints the first page', async () => {
    // Asynchronously: the service runs in this process and must answer meanwhile.
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/typed-client/meetings.ts', t.url], {
      env: { ...process.env, API_KEY: keyOf('account admin') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = outputOf(child);
    expect(await exitOf(child)).toEqual({ code: 0, signal: null });
    expect(output.stderr).toBe('');
    expect(output.stdout).toMatch(/^\d{6} {2}\S+ {2}.+\(.+\)$/m);
    expect(output.stdout).toMatch(/action item\(s\)$/m);
    expect(output.stdout).toMatch(/^next page: after "/m);
  }, 30_000);
});
