/**
 * What the service writes to its log: request lines without secrets, and a client that goes away
 * mid-request as a quiet debug line, not an error with a stack.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { redactedUrl } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { keyOf } from '../support/app.js';
import { logLines } from '../support/log-lines.js';

const { lines, sink } = logLines();
let app: App;
const admin = keyOf('account admin');

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'debug',
    SEED_DEMO: 'true',
    DELIVERY_WORKER: 'false',
    EMBEDDED_MONGO_PATH: ':memory:',
  });
  app = await startApp(config, createLogger('debug', sink));
});
afterAll(() => app.close());

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('request log lines', () => {
  it('redact the values of secret-bearing query parameters', () => {
    expect(
      redactedUrl(
        '/external/v1/recordings/1/transcript?destination_url=https%3A%2F%2Fh.example%2F%3Ftoken%3Ds3cr3t&limit=5&api_key=k1&Access_Token=t&secret&password=p&cursor=abc',
      ),
    ).toBe(
      '/external/v1/recordings/1/transcript?destination_url=[redacted]&limit=5&api_key=[redacted]&Access_Token=[redacted]&secret&password=[redacted]&cursor=abc',
    );
    expect(redactedUrl('/graphql')).toBe('/graphql');
  });

  it('the line written for a request carries the redacted URL', async () => {
    await fetch(`${app.url}/healthz?key=hunter2&token=hunter3&page=2`);
    await settle();
    const line = lines.find((l) => l.msg === 'request' && l.url?.startsWith('/healthz'));
    expect(line?.url).toBe('/healthz?key=[redacted]&token=[redacted]&page=2');
    expect(JSON.stringify(lines)).not.toContain('hunter');
  });
});

describe('clients that close the connection mid-request', () => {
  /** Sends `head` and part of a body, then closes the socket; or closes once the answer starts. */
  function abort(data: string, when: 'mid-body' | 'mid-response'): Promise<void> {
    const { hostname, port } = new URL(app.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => {});
      socket.on('close', () => resolve());
      socket.write(data);
      if (when === 'mid-body') setTimeout(() => socket.destroy(), 100);
      else socket.once('data', () => socket.destroy());
    });
  }

  const post = (path: string, body: string, declared: number) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-api-key: ${admin}\r\ncontent-length: ${declared}\r\n\r\n${body}`;

  it('log no error and no stack, for either door, mid-body or mid-response', async () => {
    const before = lines.length;
    await abort(post('/external/v1/webhooks', '{"destination_url":"', 1000), 'mid-body');
    await abort(post('/graphql', '{"query":"', 1000), 'mid-body');
    const query = JSON.stringify({
      query: '{ meetings(first: 100) { edges { node { title transcript { text } } } } }',
    });
    await abort(post('/graphql', query, Buffer.byteLength(query)), 'mid-response');
    await abort(
      `GET /external/v1/meetings?include_transcript=true&limit=100 HTTP/1.1\r\nHost: x\r\nx-api-key: ${admin}\r\n\r\n`,
      'mid-response',
    );
    await settle();
    const written = lines.slice(before);
    expect(written.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    expect(JSON.stringify(written)).not.toMatch(/"stack"/);
    expect(written.some((l) => l.msg === 'the client closed the connection')).toBe(true);
  });
});
