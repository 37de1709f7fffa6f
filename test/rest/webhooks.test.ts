/** POST /webhooks and DELETE /webhooks/{id}. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf } from '../support/app.js';
import { type RestTestApp, startRestTestApp } from './support.js';

const tom = keyOf('team admin (Sales)');
const tina = keyOf('member: team view');

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

const create = (body: unknown, key = tom) => r.request('POST', '/webhooks', { key, body });

/** Tables are built before the app starts: this stands for the local receiver in them. */
const HOOK = 'https://h.example/';
const here = (body: unknown): unknown =>
  body === null ? null : JSON.parse(JSON.stringify(body).replaceAll(HOOK, `${r.receiverUrl}/`));

describe('POST /webhooks', () => {
  it('201 with the webhook and its secret; the request’s destination_url is the answer’s url', async () => {
    const res = await create({
      destination_url: `${r.receiverUrl}/meetings`,
      triggered_for: ['my_recordings', 'shared_team_recordings'],
      include_summary: true,
      include_action_items: true,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: `${r.receiverUrl}/meetings`,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.stringMatching(/Z$/),
      include_transcript: false,
      include_crm_matches: false,
      include_summary: true,
      include_action_items: true,
      triggered_for: ['my_recordings', 'shared_team_recordings'],
    });
    const listed = await r.t.graphql('{ webhooks { id url } }', {}, tom);
    expect(listed.body.data.webhooks).toContainEqual({ id: res.body.id, url: res.body.url });
  });

  it('shared_with_me_external_recordings is shared_external_recordings', async () => {
    const res = await create({
      destination_url: `${r.receiverUrl}/external`,
      triggered_for: ['shared_with_me_external_recordings'],
      include_transcript: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.triggered_for).toEqual(['shared_external_recordings']);
  });

  const bad: [string, unknown, RegExp][] = [
    [
      'an unknown property',
      {
        destination_url: HOOK,
        triggered_for: ['my_recordings'],
        include_summary: true,
        extra: 1,
      },
      /"extra"/,
    ],
    [
      'no destination_url',
      { triggered_for: ['my_recordings'], include_summary: true },
      /^Missing body property "destination_url"\.$/,
    ],
    [
      'no triggered_for',
      { destination_url: HOOK, include_summary: true },
      /^Missing body property "triggered_for"\.$/,
    ],
    [
      'a null destination_url',
      { destination_url: null, triggered_for: ['my_recordings'], include_summary: true },
      /^Invalid body property "destination_url": must be a string\.$/,
    ],
    [
      'a number as destination_url',
      { destination_url: 42, triggered_for: ['my_recordings'], include_summary: true },
      /^Invalid body property "destination_url": must be a string\.$/,
    ],
    [
      'a string as triggered_for',
      { destination_url: HOOK, triggered_for: 'my_recordings', include_summary: true },
      /^Invalid body property "triggered_for": must be an array\.$/,
    ],
    [
      'an empty triggered_for',
      { destination_url: HOOK, triggered_for: [], include_summary: true },
      /triggered_for/,
    ],
    [
      'an unknown triggered_for value',
      { destination_url: HOOK, triggered_for: ['everything'], include_summary: true },
      /triggered_for\[0\]/,
    ],
    ['no include flag true', { destination_url: HOOK, triggered_for: ['my_recordings'] }, /include_/],
    [
      'every include flag false',
      {
        destination_url: HOOK,
        triggered_for: ['my_recordings'],
        include_summary: false,
        include_transcript: false,
      },
      /include_/,
    ],
    [
      'a boolean as a string',
      { destination_url: HOOK, triggered_for: ['my_recordings'], include_summary: 'true' },
      /^Invalid body property "include_summary": must be a boolean\.$/,
    ],
    [
      'a word as a boolean',
      { destination_url: HOOK, triggered_for: ['my_recordings'], include_transcript: 'yes' },
      /^Invalid body property "include_transcript": must be a boolean\.$/,
    ],
    [
      'a destination_url that is not a URL',
      { destination_url: 'hooks', triggered_for: ['my_recordings'], include_summary: true },
      /destination_url/,
    ],
    [
      'a destination_url that is not http(s)',
      { destination_url: 'ftp://127.0.0.1/', triggered_for: ['my_recordings'], include_summary: true },
      /destination_url/,
    ],
    ['an array body', [{ destination_url: HOOK }], /JSON object/],
    ['a null body', null, /JSON object/],
  ];
  it.each(bad)('%s: 400', async (_name, body, message) => {
    const res = await create(here(body));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toMatch(message);
  });

  it('invalid JSON: 400', async () => {
    const res = await r.request('POST', '/webhooks', {
      key: tom,
      rawBody: '{"destination_url": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/JSON/);
  });

  it('a body that is not JSON: 415', async () => {
    for (const headers of <Record<string, string>[]>[
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      {},
    ]) {
      const res = await r.request('POST', '/webhooks', { key: tom, rawBody: 'destination_url=x', headers });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const charset = await r.request('POST', '/webhooks', {
      key: tom,
      rawBody: JSON.stringify(
        here({ destination_url: HOOK, triggered_for: ['my_recordings'], include_summary: true }),
      ),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
  });

  it('a body over 64 KiB: 413, with or without a content-length', async () => {
    const big = JSON.stringify({ destination_url: `https://h.example/${'x'.repeat(70 * 1024)}` });
    const res = await r.request('POST', '/webhooks', {
      key: tom,
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.stringMatching(/64 KiB/) });

    const chunks = [big.slice(0, 40_000), big.slice(40_000)];
    const stream = new ReadableStream({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk) controller.enqueue(new TextEncoder().encode(chunk));
        else controller.close();
      },
    });
    const chunked = await fetch(`${r.url}/external/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tom },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ error: expect.stringMatching(/64 KiB/) });
  });

  it('just under 64 KiB is read', async () => {
    const body = JSON.stringify({
      destination_url: `${r.receiverUrl}/${'x'.repeat(60 * 1024)}`,
      triggered_for: ['my_recordings'],
      include_summary: true,
    });
    const res = await r.request('POST', '/webhooks', {
      key: tom,
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
  });
});

describe('DELETE /webhooks/{id}', () => {
  it('204 with no body; then 404', async () => {
    const made = await create({
      destination_url: `${r.receiverUrl}/gone`,
      triggered_for: ['my_recordings'],
      include_crm_matches: true,
    });
    const res = await r.request('DELETE', `/webhooks/${made.body.id}`, { key: tom });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    const again = await r.request('DELETE', `/webhooks/${made.body.id}`, { key: tom });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: expect.any(String) });
  });

  it('someone else’s webhook, or an id that is no webhook id: 404, and nothing is deleted', async () => {
    const made = await create({
      destination_url: `${r.receiverUrl}/mine`,
      triggered_for: ['my_recordings'],
      include_summary: true,
    });
    expect((await r.request('DELETE', `/webhooks/${made.body.id}`, { key: tina })).status).toBe(404);
    expect((await r.request('DELETE', '/webhooks/not-an-id', { key: tom })).status).toBe(404);
    expect((await r.request('DELETE', '/webhooks/000000000000000000000000', { key: tom })).status).toBe(404);
    const listed = await r.t.graphql('{ webhooks { id } }', {}, tom);
    expect(listed.body.data.webhooks).toContainEqual({ id: made.body.id });
  });
});
