import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  configurationReference,
  helpText,
  loadConfig,
  settings,
  tracingVariables,
  variables,
} from '../../src/config.js';

describe('configuration', () => {
  it('has defaults for a local start', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(4000);
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.MONGODB_URI).toBeUndefined();
    expect(config.MONGODB_DB).toBe('meetings');
    expect(config.CORS_ORIGINS).toEqual([]);
  });

  it('names every bad variable and what it expects', () => {
    try {
      loadConfig({ PORT: 'eighty', MONGODB_URI: 'postgres://x', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain('PORT must be an integer from 0 to 65535 (got "eighty")');
      expect(message).toContain('MONGODB_URI must be a mongodb:// or mongodb+srv:// URI');
      expect(message).toMatch(/LOG_LEVEL must be .*info/);
    }
  });

  it('the database tools read only where the database is: a bad PORT does not stop them', () => {
    const env = { PORT: 'x', MONGODB_URI: 'mongodb://db:27017/', MONGODB_DB: 'crm' };
    expect(() => loadConfig(env)).toThrow(/PORT must be/);
    expect(loadConfig(['database'], env)).toEqual({
      MONGODB_URI: 'mongodb://db:27017/',
      MONGODB_DB: 'crm',
      MONGODB_TIMEOUT_MS: 2000,
      MONGODB_COMMAND_METRICS: false,
    });
    expect(() => loadConfig(['database'], { MONGODB_DB: 'a/b' })).toThrow(
      /MONGODB_DB must be a MongoDB database name/,
    );
  });

  it('parses lists and booleans', () => {
    const config = loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example', SEED_DEMO: 'false' });
    expect(config.CORS_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
    expect(config.SEED_DEMO).toBe(false);
    expect(() => loadConfig({ SEED_DEMO: 'yes' })).toThrow(/SEED_DEMO must be true or false/);
  });

  it("--help lists every variable, tracing's too, with its default", () => {
    const text = helpText();
    for (const name of [...Object.keys(variables), ...Object.keys(tracingVariables)])
      expect(text).toContain(name);
    expect(text).toMatch(/^ {2}SHUTDOWN_GRACE_MS +.*\[default: 10000\]$/m);
    expect(text).toMatch(/^ {2}PUBLIC_URL +.*\[default: the address it listens on\]$/m);
  });

  it('groups the variables by concern, each in exactly one group, in --help and the reference', () => {
    const names = Object.values(settings).flatMap((group) => Object.keys(group.variables));
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(Object.keys(variables).sort());
    const text = helpText();
    const reference = configurationReference();
    for (const { title, variables: members } of Object.values(settings)) {
      // Each group's variables follow its title, before the next group's.
      const section = text.slice(text.indexOf(`${title}:\n`)).split('\n\n')[0]!;
      const table = reference.slice(reference.indexOf(`### ${title}\n`)).split('\n### ')[0]!;
      for (const name of Object.keys(members)) {
        expect(section).toContain(`  ${name} `);
        expect(table).toContain(`| \`${name}\` |`);
      }
    }
  });

  it("docs/operators/configuration.md's reference is the one src/config.ts generates (npm run docs)", () => {
    const page = readFileSync(new URL('../../docs/operators/configuration.md', import.meta.url), 'utf8');
    const block = /<!-- configuration -->\n([\s\S]*?)\n<!-- \/configuration -->/.exec(page)?.[1];
    expect(block, 'run npm run docs').toBe(configurationReference());
  });

  it('the reference has a row for every variable, with its default', () => {
    const reference = configurationReference();
    for (const name of [...Object.keys(variables), ...Object.keys(tracingVariables)])
      expect(reference).toContain(`| \`${name}\` |`);
    expect(reference).toContain('| `PORT` | `4000` |');
    expect(reference).toContain('| `MONGODB_URI` | unset |');
    expect(reference).toContain('| `CORS_ORIGINS` | empty |');
    expect(reference).toContain('| `PUBLIC_URL` | the address it listens on |');
  });
});
