/** The OpenAPI document at /external/v1/openapi.json: valid OpenAPI 3.1, derived from the route table. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, routes } from '../../rest-compat/index.js';
import { keyOf } from '../support/app.js';
import { type RestTestApp, startRestTestApp } from './support.js';

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

  it('has the security schemes, applied to every operation but itself', () => {
    const doc = r.openapi;
    expect(doc.components.securitySchemes).toEqual({
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ apiKeyAuth: [] }, { bearerAuth: [] }]);
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
