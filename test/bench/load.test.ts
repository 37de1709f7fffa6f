/** The wrk script carries the request exactly, and wrk's figures are read back in the report's units. */
import { describe, expect, it } from 'vitest';
import { luaString, parseWrkOutput, wrkScript } from '../../bench/load.js';

/** Lua's reading of a quoted string with decimal escapes (all luaString writes). */
function readLuaString(literal: string): string {
  expect(literal.startsWith('"') && literal.endsWith('"')).toBe(true);
  const bytes: number[] = [];
  const body = literal.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') {
      const digits = /^\d{1,3}/.exec(body.slice(i + 1))![0];
      bytes.push(Number(digits));
      i += digits.length;
    } else bytes.push(body.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

describe('luaString', () => {
  it('keeps quotes, backslashes, newlines and non-ASCII text exactly', () => {
    const text = 'a "quoted" \\ back\nslash, é, 日本, \u0000';
    const literal = luaString(text);
    expect(literal).toMatch(/^"[\x20-\x7e]*"$/);
    expect(literal.slice(1, -1)).not.toMatch(/(?<!\\)"/);
    expect(readLuaString(literal)).toBe(text);
  });

  it('escapes a digit after an escape safely (decimal escapes take up to three digits)', () => {
    // "\n1" must not become byte 101: the newline is written as three digits.
    expect(readLuaString(luaString('\n1'))).toBe('\n1');
  });
});

describe('wrkScript', () => {
  it('sets the method, path, headers and body of the request', () => {
    const script = wrkScript({
      method: 'POST',
      path: '/graphql?x=1',
      headers: { 'x-api-key': 'key', 'content-type': 'application/json' },
      body: '{"query":"{ a }"}',
    });
    expect(script).toContain('wrk.method = "POST"');
    expect(script).toContain('wrk.path = "/graphql?x=1"');
    expect(script).toContain('wrk.headers["x-api-key"] = "key"');
    expect(script).toContain('function done(summary, latency, requests)');
    expect(readLuaString(/wrk\.body = (".*")/.exec(script)![1]!)).toBe('{"query":"{ a }"}');
  });

  it('sends no body on a GET', () => {
    expect(wrkScript({ method: 'GET', path: '/', headers: {} })).not.toContain('wrk.body');
  });
});

describe('parseWrkOutput', () => {
  const output = [
    'Running 4s test @ http://127.0.0.1:4000',
    '  1 threads and 10 connections',
    'Requests/sec:    500.00',
    '',
    'BENCH_RESULT {"requests":2000,"us":4000000,"bytes":5000000,"connect":1,"read":2,"write":0,"status":3,"timeout":4,"p50":1500.0,"p99":12000.5}',
    '',
  ].join('\n');

  it('gives rates per second, latencies in ms and bytes per response', () => {
    expect(parseWrkOutput(output)).toEqual({
      requests: 2000,
      seconds: 4,
      rps: 500,
      p50: 1.5,
      p99: 12.0005,
      errorStatus: 3,
      errors: 3,
      timeouts: 4,
      wireBytesPerRequest: 2500,
    });
  });

  it('refuses output without the result line, quoting it', () => {
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1')).toThrow(/unable to connect/);
  });
});
