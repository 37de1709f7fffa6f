/**
 * The "## REST with curl" examples of docs/api/examples.md, run with bash as written
 * against a test instance: the first block's BASE becomes the instance's URL, every curl must exit
 * 0 with a 2xx, and each answer must have the keys of the example response shown after it (values
 * may differ: the demo data changes, and a meeting still processing has a null summary).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const run = promisify(execFile);

/** The text of `heading` up to the next heading of the same level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no "${heading}" in docs/api/examples.md`);
  const level = heading.split(' ')[0]!;
  const end = text.indexOf(`\n${level} `, start + heading.length + 2);
  return text.slice(start, end < 0 ? undefined : end);
}

const examplesPage = readFileSync('docs/api/examples.md', 'utf8');
const rest = section(examplesPage, '## REST with curl');
const blocks = [...rest.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(([, lang, code]) => ({
  lang: lang!,
  code: code!,
}));
const [setup, ...others] = blocks;
/** Each curl block with the example answer shown after it. */
const examples = others.flatMap((block, i) =>
  block.lang === 'sh' && others[i + 1] && others[i + 1]!.lang !== 'sh'
    ? [{ command: block.code, answer: others[i + 1]!.code }]
    : [],
);

/** Where `actual` lacks a key `shown` has (arrays: their first elements; null stands for any object). */
function missingKeys(actual: unknown, shown: unknown, path = '$'): string[] {
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path} is not an array`];
    return shown.length && actual.length ? missingKeys(actual[0], shown[0], `${path}[0]`) : [];
  }
  if (shown === null || typeof shown !== 'object' || actual === null) return [];
  if (typeof actual !== 'object' || Array.isArray(actual)) return [`${path} is not an object`];
  return Object.entries(shown).flatMap(([key, value]) =>
    key in actual
      ? missingKeys((actual as Record<string, unknown>)[key], value, `${path}.${key}`)
      : [`${path}.${key}`],
  );
}

let t: TestApp;
const tmp = mkdtempSync(join(tmpdir(), 'readme-examples-'));
beforeAll(async () => {
  // The webhook example points at a receiver on 127.0.0.1, as docs/api/examples.md tells to allow.
  t = await startTestApp({ EGRESS_ALLOW_CIDRS: '127.0.0.1/32' });
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await t?.close();
});

describe('docs/api/examples.md, REST with curl', () => {
  it("sets BASE to npm start's address and KEY to the account admin's key", () => {
    expect(setup?.lang).toBe('sh');
    expect(setup?.code).toContain('BASE=http://127.0.0.1:4000\n');
    expect(setup?.code).toContain(`KEY=${keyOf('account admin')}\n`);
  });

  it('shows the main endpoints, each with its answer', () => {
    const paths = examples.map((e) => e.command.match(/\$BASE(\/external\/v1\/[a-z_]+)/)?.[1]);
    expect(paths).toEqual([
      '/external/v1/meetings',
      '/external/v1/recordings',
      '/external/v1/recordings',
      '/external/v1/teams',
      '/external/v1/team_members',
      '/external/v1/webhooks',
      '/external/v1/webhooks',
    ]);
  });

  it('runs every block with bash: curl exits 0 with a 2xx and the answer has the keys shown', async () => {
    // Ids shown in an answer (the created webhook's) are the real ones in the blocks after it.
    const ids = new Map<string, string>();
    for (const { command, answer } of examples) {
      // The response headers go to a file, so the status is known whatever the block prints.
      const headers = join(tmp, 'headers');
      let script = setup!.code.replace('http://127.0.0.1:4000', t.url);
      script += `curl() { command curl -D '${headers}' "$@"; }\nset -euo pipefail\n`;
      script += [...ids].reduce((code, [shown, actual]) => code.replaceAll(shown, actual), command);
      const { stdout } = await run('bash', ['-c', script]);
      const status = Number([...readFileSync(headers, 'utf8').matchAll(/^HTTP\/\S+ (\d{3})/gm)].pop()?.[1]);
      expect(status, command).toBeGreaterThanOrEqual(200);
      expect(status, command).toBeLessThan(300);
      if (!answer.trimStart().startsWith('{')) {
        expect(stdout.trim(), command).toBe(answer.trim());
        continue;
      }
      const actual = JSON.parse(stdout);
      const shown = JSON.parse(answer);
      expect(missingKeys(actual, shown), command).toEqual([]);
      if (typeof shown.id === 'string') ids.set(shown.id, actual.id);
    }
  }, 60_000);
});

describe('docs/api/examples.md, the receiver and the typed client', () => {
  // test/examples/webhook-receiver.test.ts and typed-client.test.ts run these very commands.
  it('shows the commands their tests run', () => {
    const receiver = section(examplesPage, '## A webhook receiver');
    expect(rest).toContain('"destination_url": "http://127.0.0.1:8787/webhook"');
    expect(receiver).toContain(
      'WEBHOOK_SECRET=whsec_... PORT=8787 node --import tsx examples/webhook-receiver.ts\n',
    );
    expect(receiver).toContain('npm run ingest -- --file examples/recording.json\n');
    expect(receiver).toContain('recording 100900 "Onboarding call with Hooli"');
    const client = section(examplesPage, '## A typed GraphQL client');
    expect(client).toContain(
      `API_KEY=${keyOf('account admin')} node --import tsx examples/typed-client/meetings.ts http://127.0.0.1:4000\n`,
    );
  });
});
