/**
 * The OpenAPI document at /external/v1/openapi.json: valid OpenAPI 3.1, derived from the route
 * table, and readable in a reference: examples everywhere that validate (and that the service
 * really answers), the webhook event, tags, licence, no bare regular expressions.
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from '../../rest-compat/examples.js';
import { buildOpenApiDocument, routes } from '../../rest-compat/index.js';
import { decodeBody, decodeParams } from '../../rest-compat/params.js';
import { EgressGuard } from '../../src/delivery/egress.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { fanOutContentReady } from '../../src/domain/content-ready.js';
import { silentLogger } from '../delivery/support.js';
import { keyOf } from '../support/app.js';
import { startReceiver } from '../support/receiver.js';
import { type RestResponse, type RestTestApp, startRestTestApp } from './support.js';

const addFormats = ((ajvFormats as any).default ?? ajvFormats) as (ajv: Ajv2020) => Ajv2020;

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
});
afterAll(() => r.close());

/** Component schemas as one strict JSON Schema document (`#/components/schemas/X` → `#/$defs/X`). */
function strictAjvWithComponents(doc: any): { ajv: Ajv2020; root: any } {
  const defs = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'),
  );
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return { ajv, root: { $id: 'components', $defs: defs } };
}

describe('the document', () => {
  it('is served without a key, as JSON, and is valid OpenAPI 3.1', async () => {
    const res = await fetch(`${r.url}/external/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = await res.json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is the route table: every route, method, operation id and parameter, nothing else', () => {
    const doc = r.openapi;
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(routes))));
    const operations = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(
        ([method, op]: [string, any]) => `${method.toUpperCase()} ${path} ${op.operationId}`,
      ),
    );
    expect(operations.sort()).toEqual(
      [
        ...routes.map((route) => `${route.method} ${route.path} ${route.operationId}`),
        'GET /openapi.json getOpenApiDocument',
      ].sort(),
    );
    for (const route of routes) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      const names = (op.parameters ?? []).map((p: any) => `${p.in}:${p.name}`);
      expect(names).toEqual([...route.pathSpecs, ...route.querySpecs].map((p) => `${p.in}:${p.name}`));
    }
  });

  it('declares the parameters as validation reads them', () => {
    const params = r.openapi.paths['/meetings'].get.parameters as any[];
    const byName = new Map(params.map((p) => [p.name, p]));
    expect(byName.get('limit')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    });
    for (const name of ['teams[]', 'recorded_by[]', 'calendar_invitees_domains[]']) {
      expect(byName.get(name)).toMatchObject({ style: 'form', explode: true, schema: { type: 'array' } });
    }
    expect(byName.get('calendar_invitees_domains_type').schema).toEqual({
      default: 'all',
      type: 'string',
      enum: ['all', 'only_internal', 'one_or_more_external'],
    });
    expect(byName.get('include_summary').schema).toEqual({ default: false, type: 'boolean' });
    expect(byName.get('created_after').schema).toMatchObject({ type: 'string', format: 'date-time' });
    const transcript = r.openapi.paths['/recordings/{recording_id}/transcript'].get.parameters;
    expect(transcript[0]).toMatchObject({
      name: 'recording_id',
      in: 'path',
      required: true,
      schema: { type: 'integer' },
    });
    const body = r.openapi.paths['/webhooks'].post.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.required.sort()).toEqual(['destination_url', 'triggered_for']);
    expect(body.properties.triggered_for.items.enum).toContain('shared_with_me_external_recordings');
  });

  it('has the security schemes, described, applied to every operation but itself', () => {
    const doc = r.openapi;
    expect(doc.components.securitySchemes).toEqual({
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: expect.any(String) },
      bearerAuth: { type: 'http', scheme: 'bearer', description: expect.any(String) },
      oauth2: {
        type: 'oauth2',
        description: expect.any(String),
        flows: {
          authorizationCode: {
            authorizationUrl: '/external/v1/oauth2/authorize',
            tokenUrl: '/external/v1/oauth2/token',
            refreshUrl: '/external/v1/oauth2/token',
            scopes: { public_api: expect.any(String) },
          },
        },
      },
    });
    expect(doc.components.securitySchemes.bearerAuth.description).toMatch(
      /include_summary.*include_transcript/,
    );
    expect(doc.security).toEqual([{ apiKeyAuth: [] }, { bearerAuth: [] }, { oauth2: ['public_api'] }]);
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('every component schema compiles as strict JSON Schema 2020-12', () => {
    const { ajv, root } = strictAjvWithComponents(r.openapi);
    ajv.addSchema(root);
    for (const id of Object.keys(root.$defs))
      expect(() => ajv.compile({ $ref: `components#/$defs/${id}` })).not.toThrow();
  });

  it('the response schemas refuse what is off-contract', async () => {
    const { ajv, root } = strictAjvWithComponents(r.openapi);
    ajv.addSchema(root);
    const meetingList = ajv.compile({ $ref: 'components#/$defs/MeetingList' });
    const res = await r.get('/meetings', {
      key: keyOf('account admin'),
      query: { include_highlights: true },
    });
    expect(meetingList(res.body)).toBe(true);
    const mutate = (f: (m: any) => void) => {
      const copy = structuredClone(res.body);
      f(copy.items[0]);
      return meetingList(copy);
    };
    expect(mutate((m) => delete m.title)).toBe(false);
    expect(mutate((m) => (m.created_at = '2026-01-01T00:00:00'))).toBe(false);
    expect(mutate((m) => (m.calendar_invitees_domains_type = 'ONLY_INTERNAL'))).toBe(false);
    expect(mutate((m) => (m.surprise = 1))).toBe(false);
    expect(mutate((m) => (m.recorded_by.team = 3))).toBe(false);
    const envelope = structuredClone(res.body);
    delete envelope.next_cursor;
    expect(meetingList(envelope)).toBe(false);
  });

  it('every answer of this file was checked against it', () => {
    expect(r.checked()).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------- a document a reference reads well

const methods = ['get', 'post', 'put', 'patch', 'delete'];
const pointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every operation of the document, with its JSON pointer: paths, webhooks and their callbacks. */
function operationsOf(doc: any): { pointer: string; op: any }[] {
  const found: { pointer: string; op: any }[] = [];
  const visitItems = (items: any, pointer: string) => {
    for (const [key, item] of Object.entries<any>(items ?? {}))
      for (const method of methods) {
        const op = item[method];
        if (!op) continue;
        const at = `${pointer}/${pointerSegment(key)}/${method}`;
        found.push({ pointer: at, op });
        for (const [name, callback] of Object.entries<any>(op.callbacks ?? {}))
          visitItems(callback, `${at}/callbacks/${pointerSegment(name)}`);
      }
  };
  visitItems(doc.paths, '/paths');
  visitItems(doc.webhooks, '/webhooks');
  return found;
}

/** `{$ref: '#/components/parameters/X'}` → the parameter itself. */
const resolve = (doc: any, node: any) =>
  node.$ref
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((o: any, k: string) => o[k], doc)
    : node;

/** Calls `visit` on every object of the document with its JSON pointer. */
function walk(node: any, pointer: string, visit: (node: any, pointer: string) => void): void {
  if (node === null || typeof node !== 'object') return;
  visit(node, pointer);
  for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${pointerSegment(key)}`, visit);
}

/** Every example of the document with the pointer of the schema it must satisfy. */
function examplesOf(doc: any): { where: string; schema: string; value: unknown }[] {
  const found: { where: string; schema: string; value: unknown }[] = [];
  walk(doc, '', (node, pointer) => {
    // Parameters and media types: `example`, or named `examples`, beside a `schema`.
    if (node.schema && typeof node.schema === 'object') {
      if ('example' in node) found.push({ where: pointer, schema: `${pointer}/schema`, value: node.example });
      for (const [name, example] of Object.entries<any>(node.examples ?? {}))
        found.push({
          where: `${pointer}/examples/${name}`,
          schema: `${pointer}/schema`,
          value: example.value,
        });
    }
    // Schemas: JSON Schema's `examples` array.
    else if (Array.isArray(node.examples) && (node.type || node.$ref))
      for (const value of node.examples) found.push({ where: pointer, schema: pointer, value });
  });
  return found;
}

describe('a document a reference renders well', () => {
  it('gives every parameter of every operation an example, and every body its examples', () => {
    const operations = operationsOf(r.openapi);
    expect(operations.length).toBeGreaterThan(routes.length + 2); // webhooks and callbacks too
    for (const { pointer, op } of operations) {
      for (const parameter of (op.parameters ?? []).map((p: any) => resolve(r.openapi, p))) {
        const where = `${pointer}: parameter ${parameter.name}`;
        // A reference's "Try it out" fills in and sends every `example`: only where one must be
        // given. An optional parameter's example is in its description, so "Execute" sends defaults.
        if (parameter.required) expect(parameter.example, where).toBeDefined();
        else {
          expect(parameter.example, where).toBeUndefined();
          expect(parameter.examples, where).toBeUndefined();
          expect(parameter.schema?.example, where).toBeUndefined();
          expect(parameter.description, where).toMatch(/Example: `[^`]+`(, `[^`]+`)*\.$/);
        }
      }
      if (op.requestBody)
        expect(Object.keys(op.requestBody.content['application/json'].examples ?? {}), pointer).not.toEqual(
          [],
        );
    }
  });

  it('gives every answer with a body of every operation examples, errors included', () => {
    let answers = 0;
    for (const { pointer, op } of operationsOf(r.openapi).filter((o) => o.pointer.startsWith('/paths'))) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue; // 204
        answers++;
        expect(Object.keys(media.examples ?? {}), `${pointer} ${status}`).not.toEqual([]);
        if (Number(status) >= 400)
          for (const example of Object.values<any>(media.examples))
            expect(example.value.error, `${pointer} ${status}`).toMatch(/\S/);
      }
    }
    expect(answers).toBeGreaterThan(routes.length * 5);
  });

  it('every example validates against its own schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(r.openapi, 'openapi.json');
    const examples = examplesOf(r.openapi);
    expect(examples.length).toBeGreaterThan(100);
    for (const { where, schema, value } of examples) {
      const validate = ajv.compile({ $ref: `openapi.json#${schema}` });
      expect(validate(value), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('the request examples are accepted by the validation of the service itself', () => {
    for (const route of routes) {
      const given: Record<string, unknown> = route.examples?.parameters ?? {};
      const values = (name: string) => {
        const spec = [...route.querySpecs, ...route.pathSpecs].find((s) => s.name === name);
        const value = spec && given[spec.key];
        return value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
      };
      expect(() => decodeParams(route.query, route.querySpecs, values), route.operationId).not.toThrow();
      expect(() => decodeParams(route.pathParams, route.pathSpecs, values), route.operationId).not.toThrow();
      for (const example of Object.values(route.examples?.body ?? {}))
        expect(() => decodeBody(route.body!, example.value), route.operationId).not.toThrow();
    }
  });

  it('the success examples are the demo data as the service answers it', async () => {
    const sam = keyOf('member: own meetings + CRM');
    // updated_at is when the demo data was loaded: the examples show another instant.
    const exampleUpdatedAt = (E.meetingPages.bare!.value as any).items[0].updated_at;
    const find = async (query: Record<string, boolean>) => {
      const { items } = await r.getAll('/meetings', { key: sam, query: { limit: 100, ...query } });
      const meeting = items.find((m) => m.recording_id === E.recordingId);
      expect(new Date(meeting.updated_at).toISOString()).toBe(meeting.updated_at);
      return { ...meeting, updated_at: exampleUpdatedAt };
    };
    const bare = await find({});
    expect(E.meetingPages.bare!.value).toEqual({ limit: 1, next_cursor: E.meetingsCursor, items: [bare] });
    const full = await find({
      include_transcript: true,
      include_summary: true,
      include_action_items: true,
      include_highlights: true,
      include_crm_matches: true,
    });
    // The example shortens the transcript to its first lines.
    expect((E.meetingPages.full!.value as any).items[0]).toEqual({
      ...full,
      transcript: full.transcript.slice(0, E.transcript.length),
    });
    // The webhook of the POST /webhooks example (summary and action items) would receive this body
    // (content-ready events leave out updated_at).
    const { updated_at: _, ...event } = await find({ include_summary: true, include_action_items: true });
    expect(E.webhookEvent).toEqual(event);
    const summary = await r.get(`/recordings/${E.recordingId}/summary`, { key: sam });
    expect(E.summaryAnswers.summary!.value).toEqual(summary.body);
  });

  it('the error examples are what the service answers', async () => {
    const admin = keyOf('account admin');
    const sam = keyOf('member: own meetings + CRM');
    const app = `Bearer ${keyOf('connected app (Tom)')}`;
    const hook = {
      destination_url: `${r.receiverUrl}/hook`,
      triggered_for: ['my_recordings'],
      include_summary: true,
    };
    const post = (body: unknown, options: Record<string, unknown> = {}) =>
      r.request('POST', '/webhooks', { key: sam, body, ...options });
    const lists = ['listMeetings', 'listMeetingTypes', 'listTeams', 'listTeamMembers', 'listUsers'];
    const listPath = (id: string) => routes.find((route) => route.operationId === id)!.path;
    /** A request that gets each error example, by "operationId status example". */
    const requests: Record<string, () => Promise<RestResponse>> = {
      ...Object.fromEntries(
        lists.flatMap((id) => [
          [`${id} 400 limit`, () => r.get(listPath(id), { key: admin, query: { limit: 500 } })],
          [`${id} 400 cursor`, () => r.get(listPath(id), { key: admin, query: { cursor: 'abc' } })],
        ]),
      ),
      'listMeetings 400 date': () => r.get('/meetings', { key: sam, query: { created_after: 'yesterday' } }),
      'listMeetings 400 email': () => r.get('/meetings', { key: sam, query: { recorded_by: ['sam'] } }),
      'listMeetings 400 oauth': () => r.get('/meetings', { key: app, query: { include_summary: true } }),
      'listUsers 400 invited': () =>
        r.get('/users', { key: admin, query: { status: 'invited', settings_access: 'none' } }),
      'listUsers 400 status': () => r.get('/users', { key: admin, query: { status: 'gone' } }),
      'listUsers 403 forbidden': () => r.get('/users', { key: sam }),
      ...Object.fromEntries(
        ['Transcript', 'Summary'].flatMap((kind) => {
          const path = `/recordings/${E.recordingId}/${kind.toLowerCase()}`;
          return [
            [
              `getRecording${kind} 400 recording_id`,
              () => r.get(`/recordings/abc/${kind.toLowerCase()}`, { key: sam }),
            ],
            [
              `getRecording${kind} 400 destination_url`,
              () => r.get(path, { key: sam, query: { destination_url: 'http://10.0.0.5/x' } }),
            ],
            [
              `getRecording${kind} 404 missing`,
              () => r.get(`/recordings/999999/${kind.toLowerCase()}`, { key: sam }),
            ],
          ];
        }),
      ),
      'requestRecordingDownload 400 recording_id': () =>
        r.request('POST', '/recordings/abc/download', { key: sam, body: {} }),
      'requestRecordingDownload 400 destination_url': () =>
        r.request('POST', `/recordings/${E.recordingId}/download`, {
          key: sam,
          body: { destination_url: 'http://10.0.0.5/x' },
        }),
      'requestRecordingDownload 404 missing': () =>
        r.request('POST', '/recordings/999999/download', { key: sam, body: {} }),
      // No media in the test app's demo data.
      'requestRecordingDownload 422 none': () =>
        r.request('POST', `/recordings/${E.recordingId}/download`, { key: sam, body: {} }),
      'requestRecordingDownload 413 tooLarge': () =>
        r.request('POST', `/recordings/${E.recordingId}/download`, {
          key: sam,
          body: { padding: 'x'.repeat(70_000) },
        }),
      'requestRecordingDownload 415 notJson': () =>
        r.request('POST', `/recordings/${E.recordingId}/download`, {
          key: sam,
          rawBody: '{}',
          headers: { 'content-type': 'text/plain' },
        }),
      'getRecordingDownload 400 recording_id': () =>
        r.get(`/recordings/abc/downloads/${E.downloadId}`, { key: sam }),
      'getRecordingDownload 404 download': () =>
        r.get(`/recordings/${E.recordingId}/downloads/${E.downloadId}`, { key: sam }),
      'createWebhook 400 includes': () => post({ ...hook, include_summary: false }),
      'createWebhook 400 triggered_for': () => post({ ...hook, triggered_for: [] }),
      'createWebhook 400 missing': () => post({ ...hook, destination_url: undefined }),
      'createWebhook 400 unknown': () => post({ ...hook, url: E.destinationUrl }),
      'createWebhook 400 refused': () => post({ ...hook, destination_url: 'http://10.0.0.5/hook' }),
      'createWebhook 413 tooLarge': () => post({ ...hook, padding: 'x'.repeat(70_000) }),
      'createWebhook 415 notJson': () =>
        post(undefined, { rawBody: JSON.stringify(hook), headers: { 'content-type': 'text/plain' } }),
      'deleteWebhook 400 encoding': () => r.request('DELETE', '/webhooks/%ZZ', { key: sam }),
      'deleteWebhook 404 missing': () => r.request('DELETE', `/webhooks/${E.webhookId}`, { key: sam }),
    };
    const notReplayed = new Set(['429', '500', '503']); // they need a burst, a bug or an outage
    const covered = new Set<string>();
    for (const route of routes) {
      const op = r.openapi.paths[route.path][route.method.toLowerCase()];
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400 || notReplayed.has(status)) continue;
        for (const [name, example] of Object.entries<any>(response.content['application/json'].examples)) {
          const label = `${route.operationId} ${status} ${name}`;
          const send =
            status === '401'
              ? () =>
                  r.request(route.method, route.path.replace(/\{\w+\}/, '100192'), {
                    key: name === 'invalid' ? 'mk_not_a_key' : undefined,
                    body: route.body ? Object.values(route.examples?.body ?? {})[0]?.value : undefined,
                  })
              : requests[label];
          expect(send, `no request replays the example ${label}`).toBeDefined();
          const answer = await send!();
          expect({ status: answer.status, body: answer.body }, label).toEqual({
            status: Number(status),
            body: example.value,
          });
          covered.add(label);
        }
      }
    }
    expect([...Object.keys(requests)].filter((label) => !covered.has(label))).toEqual([]);
  });

  it('documents the webhook event: body, the three Standard Webhooks headers, a signed example', () => {
    const doc = r.openapi;
    const event = doc.webhooks.newMeetingContentReady.post;
    const headers = event.parameters.map((p: any) => resolve(doc, p));
    expect(headers.map((h: any) => [h.in, h.name, h.required])).toEqual([
      ['header', 'webhook-id', true],
      ['header', 'webhook-timestamp', true],
      ['header', 'webhook-signature', true],
    ]);
    for (const header of headers) expect(header.description).toMatch(/\S{10}/);
    expect(headers[2].description).toMatch(/HMAC-SHA256/);
    const body = event.requestBody.content['application/json'];
    expect(body.schema).toEqual({ $ref: '#/components/schemas/Meeting' });
    const example = Object.values<any>(body.examples)[0].value;
    // The example headers are those of the example body, signed with the example secret: a
    // receiver can check its verification code against them.
    const [id, timestamp, signature] = headers.map((h: any) => h.example);
    const expected = new Webhook(E.webhookSecret).sign(
      id,
      new Date(Number(timestamp) * 1000),
      JSON.stringify(example),
    );
    expect(signature).toBe(expected);
    expect(Object.keys(event.responses)).toEqual(expect.arrayContaining(['2XX', '410', 'default']));
    expect(event.responses['410'].description).toMatch(/disabled/);
    expect(event.responses.default.description).toMatch(
      /5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h/,
    );
  });

  it('the example event is the body a webhook made as in the POST /webhooks example receives, byte for byte', async () => {
    const rx = await startReceiver();
    const collections = r.t.app.database.collections;
    const made = await r.request('POST', '/webhooks', {
      key: keyOf('member: own meetings + CRM'),
      body: { ...(E.createWebhookBody.summaries!.value as object), destination_url: `${rx.url}/hook` },
    });
    try {
      expect(made.status).toBe(201);
      const meeting = await collections.meetings.findOne({ recordingId: E.recordingId });
      await fanOutContentReady(collections, [meeting!], new Date());
      const worker = new DeliveryWorker({
        collections,
        media: r.t.app.database.media,
        logger: silentLogger,
        egress: new EgressGuard(['127.0.0.1/32']),
      });
      await worker.runOnce();
      const [event] = await rx.waitFor(1, '/hook');
      // The signature example signs JSON.stringify(webhookEvent): these are the bytes the service sends.
      expect(event!.body).toBe(JSON.stringify(E.webhookEvent));
    } finally {
      await r.request('DELETE', `/webhooks/${made.body.id}`, { key: keyOf('member: own meetings + CRM') });
      await rx.close();
    }
  });

  it('the callback examples are what destination_url receives', async () => {
    const rx = await startReceiver();
    try {
      for (const what of ['transcript', 'summary'])
        await r.get(`/recordings/${E.recordingId}/${what}`, {
          key: keyOf('member: own meetings + CRM'),
          query: { destination_url: `${rx.url}/${what}` },
        });
      const worker = new DeliveryWorker({
        collections: r.t.app.database.collections,
        media: r.t.app.database.media,
        logger: silentLogger,
        egress: new EgressGuard(['127.0.0.1/32']),
      });
      await worker.runOnce();
      const [summary] = await rx.waitFor(1, '/summary');
      expect(summary!.body).toBe(JSON.stringify(E.summaryDelivery.delivery!.value));
      const [transcript] = await rx.waitFor(1, '/transcript');
      const sent = JSON.parse(transcript!.body);
      // The example shortens the transcript to its first lines.
      expect({ ...sent, transcript: sent.transcript.slice(0, E.transcript.length) }).toEqual(
        E.transcriptDelivery.delivery!.value,
      );
    } finally {
      await rx.close();
    }
  });

  it('documents the deliveries of destination_url as callbacks', () => {
    for (const [path, schema] of [
      ['/recordings/{recording_id}/transcript', 'TranscriptDelivery'],
      ['/recordings/{recording_id}/summary', 'SummaryDelivery'],
    ] as const) {
      const callbacks = r.openapi.paths[path].get.callbacks;
      const post = Object.values<any>(callbacks)[0]['{$request.query.destination_url}'].post;
      expect(post.requestBody.content['application/json'].schema).toEqual({
        $ref: `#/components/schemas/${schema}`,
      });
      expect(r.openapi.components.schemas[schema].required).toEqual(expect.arrayContaining(['recording_id']));
    }
  });

  it('describes every operation and groups it under a described tag', () => {
    const doc = r.openapi;
    const declared = new Map(doc.tags.map((t: any) => [t.name, t.description]));
    for (const name of ['Meetings', 'Recordings', 'Teams', 'Users', 'Webhooks'])
      expect(declared.get(name), name).toMatch(/\S{10}/);
    const used = new Set<string>();
    for (const { pointer, op } of operationsOf(doc).filter((o) => !o.pointer.includes('/callbacks/'))) {
      expect(op.summary, pointer).toMatch(/\S{5}/);
      expect(op.description, pointer).toMatch(/\S{10}/);
      expect(op.tags, pointer).toHaveLength(1);
      expect(declared.has(op.tags[0]), pointer).toBe(true);
      used.add(op.tags[0]);
    }
    expect([...declared.keys()].sort()).toEqual([...used].sort());
  });

  it('is MIT licensed, as the repository is', () => {
    expect(r.openapi.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const root = new URL('../../', import.meta.url);
    expect(JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).license).toBe('MIT');
    expect(readFileSync(new URL('LICENSE', root), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) 2026 Meetings gateway contributors\n/,
    );
  });

  it('shows no regular expression without words saying what it accepts', () => {
    const patterns: string[] = [];
    walk(r.openapi, '', (node, pointer) => {
      // A parameter's description speaks for its schema.
      const schemas = node.in && node.schema ? [[node.schema, node.description]] : [];
      if (typeof node.pattern === 'string') schemas.push([node, node.description]);
      for (const [schema, description] of schemas) {
        if (typeof schema.pattern !== 'string' && typeof schema.items?.pattern !== 'string') continue;
        patterns.push(pointer);
        expect(description ?? schema.description, `${pointer}: a bare pattern`).toMatch(/\S{10}/);
        expect(schema.format, `${pointer}: a pattern beside a named format`).toBeUndefined();
      }
    });
    expect(patterns.length).toBeGreaterThan(0); // HH:MM:SS positions keep theirs, described
    const text = JSON.stringify(r.openapi);
    expect(text).not.toContain('\\\\d\\\\d[2468][048]'); // zod's date-time regex
  });
});
