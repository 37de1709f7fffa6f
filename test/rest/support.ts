/**
 * The REST door through the real HTTP server, and a client whose every answer is checked against
 * the OpenAPI document the server publishes: status documented for the operation, content type,
 * and body valid against the operation's response schema (ajv, JSON Schema 2020-12).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { expect } from 'vitest';
import { authHeaders, startTestApp, type TestApp } from '../support/app.js';
import { startReceiver } from '../support/receiver.js';

export const PREFIX = '/external/v1';

export interface RestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
  text: string;
}

export interface RequestOptions {
  /** Sent as X-Api-Key, or as Authorization when it starts with "Bearer ". */
  key?: string;
  /** An object (arrays become `name[]=` pairs, percent-encoded) or a raw query string. */
  query?: Record<string, string | number | boolean | readonly string[] | undefined> | string;
  /** Serialised as JSON with content-type application/json, unless `rawBody` is given. */
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface RestTestApp {
  /** The app: database, GraphQL helper. */
  t: TestApp;
  /** The app's base URL (t.url), serving both /graphql and /external/v1. */
  url: string;
  request(method: string, path: string, options?: RequestOptions): Promise<RestResponse>;
  get(path: string, options?: RequestOptions): Promise<RestResponse>;
  /** GETs a list endpoint page after page to the end. */
  getAll(path: string, options?: RequestOptions): Promise<{ items: any[]; pages: RestResponse[] }>;
  /**
   * A local receiver (../support/receiver.ts) for destination_url and webhook URLs: the egress
   * guard lets 127.0.0.1 through in tests (EGRESS_ALLOW_CIDRS), and the delivery worker finds
   * someone there.
   */
  receiverUrl: string;
  /** The OpenAPI document the server publishes. */
  openapi: any;
  /** How many answers were checked against the OpenAPI document. */
  checked(): number;
  close(): Promise<void>;
}

const addFormats = ((ajvFormats as any).default ?? ajvFormats) as (ajv: Ajv2020) => Ajv2020;

function queryString(query: RequestOptions['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query ? `?${query}` : '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(`${name}[]`, v);
    else params.append(name, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Checks answers against the published OpenAPI document. */
class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp }[];
  count = 0;

  constructor(readonly doc: any) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'openapi.json');
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  check(method: string, pathname: string, res: RestResponse): void {
    const where = `${method} ${pathname} → ${res.status} ${res.text.slice(0, 300)}`;
    const path = pathname.slice(PREFIX.length);
    const found = this.templates.find((t) => t.pattern.test(path));
    let pointer: string;
    if (!found) {
      expect(res.status, `undocumented path answered: ${where}`).toBe(404);
      pointer = '/components/schemas/Error';
    } else {
      const item = this.doc.paths[found.template];
      const operation = item[method.toLowerCase()];
      if (!operation) {
        expect(res.status, `undocumented method answered: ${where}`).toBe(405);
        const allow = Object.keys(item)
          .map((m) => m.toUpperCase())
          .sort();
        expect(res.headers.get('allow')?.split(', ').sort(), where).toEqual(allow);
        pointer = '/components/schemas/Error';
      } else {
        const response = operation.responses[String(res.status)];
        expect(response, `status not documented for the operation: ${where}`).toBeDefined();
        const escaped = found.template.replace(/~/g, '~0').replace(/\//g, '~1');
        const content = response.content?.['application/json'];
        if (!content) {
          expect(res.text, `a body where none is documented: ${where}`).toBe('');
          this.count++;
          return;
        }
        pointer = `/paths/${escaped}/${method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`;
      }
    }
    expect(res.headers.get('content-type'), where).toMatch(/^application\/json\b/);
    if (method === 'HEAD') {
      this.count++;
      return; // no body, by definition
    }
    const validate = this.validator(pointer);
    if (!validate(res.body)) {
      throw new Error(
        `answer does not match the OpenAPI document: ${where}\n${JSON.stringify(validate.errors, null, 2)}`,
      );
    }
    this.count++;
  }
}

export async function startRestTestApp(given: Record<string, string> = {}): Promise<RestTestApp> {
  const env = { EGRESS_ALLOW_CIDRS: '127.0.0.1/32', ...given };
  const receiver = await startReceiver();
  const t = await startTestApp(env);
  const url = t.url;
  const openapi = await (await fetch(`${url}${PREFIX}/openapi.json`)).json();
  const checker = new OpenApiChecker(openapi);

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<RestResponse> {
    const headers: Record<string, string> = { ...authHeaders(options.key), ...options.headers };
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const pathname = `${PREFIX}${path}`;
    const res = await fetch(`${url}${pathname}${queryString(options.query)}`, { method, headers, body });
    const text = await res.text();
    const answer: RestResponse = {
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : undefined,
      text,
    };
    checker.check(method, pathname, answer);
    return answer;
  }

  const get = (path: string, options?: RequestOptions) => request('GET', path, options);

  return {
    t,
    url,
    request,
    get,
    async getAll(path, options = {}) {
      const items: any[] = [];
      const pages: RestResponse[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 1000; i++) {
        const base = typeof options.query === 'object' ? options.query : {};
        const res = await get(path, { ...options, query: cursor ? { ...base, cursor } : base });
        expect(res.status, res.text).toBe(200);
        pages.push(res);
        items.push(...res.body.items);
        cursor = res.body.next_cursor;
        if (cursor === null) return { items, pages };
      }
      throw new Error('no end to the list');
    },
    receiverUrl: receiver.url,
    openapi,
    checked: () => checker.count,
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}
