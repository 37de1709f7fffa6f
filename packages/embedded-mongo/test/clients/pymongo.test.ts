/**
 * A client nobody here wrote: Debian's pymongo runs a Python user's session (pymongo_session.py)
 * against the engine (or against MONGODB_URI), and each answer is what mongod gives.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedMongo, startEmbeddedMongo } from '../../src/index.js';

// Debian's interpreter: the one python3-pymongo installs into (a pyenv python on PATH lacks it).
const python = '/usr/bin/python3';
const script = fileURLToPath(new URL('./pymongo_session.py', import.meta.url));

let engine: EmbeddedMongo | undefined;
let seen: Record<string, unknown>;

beforeAll(async () => {
  const hasPymongo = existsSync(python) && spawnSync(python, ['-c', 'import pymongo']).status === 0;
  if (!hasPymongo)
    throw new Error(
      `pymongo is missing for ${python}: this test runs a client nobody here wrote. ` +
        'Install it with: bash scripts/ensure-test-tools.sh (npm test does this as root; or apt-get install python3-pymongo).',
    );
  let uri = process.env.MONGODB_URI;
  if (!uri) {
    engine = await startEmbeddedMongo();
    uri = engine.uri;
  }
  const db = `pymongo_${randomBytes(4).toString('hex')}`;
  // Asynchronous: the engine answers on this process's event loop.
  const { spawn } = await import('node:child_process');
  const child = spawn(python, [script, uri, db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the pymongo session failed (${code}):\n${stderr}`);
  seen = JSON.parse(stdout) as Record<string, unknown>;
}, 60_000);

afterAll(async () => {
  await engine?.close();
});

describe('pymongo', () => {
  it('finds, counts, sorts and pages', () => {
    expect(seen.count).toBe(10);
    // ages 20 + i % 7 >= 24: 26 first (i = 6, 13, 20, 27), then 25 (i = 5, ...)
    expect(seen.page).toEqual([6, 13, 20, 27, 5]);
  });

  it('gets every number back with the BSON type it stored', () => {
    expect(seen.types).toEqual({
      small: 'Int64',
      big: 'Int64',
      double: 'float',
      int: 'int',
      dec: 'Decimal128',
    });
    expect(seen.type_query).toEqual([1]);
    expect(seen.inc_big).toBe('3000000001');
    expect(seen.dec_equal).toBe(1);
  });

  it('creates indexes with int or float directions, and explain names them', () => {
    expect(seen.indexes).toEqual(['_id_', 'age_1_name_-1', 'team_float']);
    expect(seen.plan).toContain('IXSCAN');
    expect(seen.plan).not.toContain('SORT');
    expect(seen.team_plan).toContain('IXSCAN');
  });

  it('raises DuplicateKeyError on a unique index', () => {
    expect(seen.duplicate).toBe(11000);
  });

  it('aggregates, updates and writes in bulk', () => {
    expect(seen.by_team).toEqual([
      ['a', 10, 23],
      ['b', 10, 22.6],
      ['c', 10, 22.9],
    ]);
    expect(seen.after).toBe('renamed');
    expect(seen.bulk).toEqual([1, 1, 1]);
  });

  it('compares embedded documents field by field in order, and honours inline regex flags', () => {
    expect(seen.subdoc).toEqual([1]);
    expect(seen.regex).toEqual([1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('searches a text index, best score first', () => {
    // "a short meeting" (2 terms) scores above "the meetings ran long" (3 terms, "the" a stop word).
    expect(seen.text).toEqual([2, 1]);
  });

  it('refuses a misspelt command field, and round-trips ObjectIds', () => {
    expect(seen.unknown_field).toBe(40415);
    expect(seen.oid).toBe(true);
  });
});
