/**
 * From an HTTP request to typed input, strictly, with errors that name the bad parameter.
 *
 * A route declares its query and path parameters as a zod object of *typed* values (an integer, a
 * boolean, an enum, an array of strings...): that one declaration is what the OpenAPI document
 * shows and what the values are checked against. Turning the raw strings into those types is
 * generic and strict: integers are digits, booleans are exactly `true` / `false`, a scalar
 * parameter comes at most once, and an array parameter `name` arrives as `name[]=v` pairs (or
 * `name%5B%5D=v`, or the bare `name=v`).
 */
import * as z from 'zod';

export class RestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RestError';
  }
}

export const badRequest = (message: string) => new RestError(400, message);

export type JsonSchema = Record<string, unknown>;

export type ParamLocation = 'query' | 'path';

export interface ParamSpec {
  /** The key in the zod object (and in the typed input). */
  key: string;
  /** The name on the wire: `teams[]` for the array parameter `teams`. */
  name: string;
  in: ParamLocation;
  kind: 'integer' | 'number' | 'boolean' | 'string' | 'array';
  required: boolean;
  /** JSON Schema of the typed value (input side: defaults shown, not required). */
  schema: JsonSchema;
  description?: string;
}

/** The formats JSON Schema names, which a reference shows in words. */
const namedFormats = new Set(['date-time', 'email', 'uri']);

/**
 * A `z.toJSONSchema` override: zod writes its own regular expression beside a named format
 * (`z.iso.datetime()`, `z.email()`); the format says the same in words, so the regex is left out
 * of the document. Validation is zod's either way.
 */
export function namedFormatsOnly({
  jsonSchema,
}: {
  jsonSchema: { format?: string; pattern?: string };
}): void {
  if (jsonSchema.format !== undefined && namedFormats.has(jsonSchema.format)) delete jsonSchema.pattern;
}

/** JSON Schema of a request-side zod schema, for OpenAPI (no `$schema` key). */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    override: namedFormatsOnly,
  }) as JsonSchema;
  return json;
}

/** The parameters of a zod object, in declaration order. */
export function paramSpecs(object: z.ZodObject | undefined, location: ParamLocation): ParamSpec[] {
  if (!object) return [];
  const json = inputJsonSchema(object) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([key, property]) => {
    const { description, ...schema } = property as JsonSchema & { description?: string };
    const type = schema.type;
    const kind =
      type === 'array' || type === 'integer' || type === 'number' || type === 'boolean' ? type : 'string';
    if (kind === 'array' && location === 'path') throw new Error(`path parameter ${key} cannot be an array`);
    return {
      key,
      name: kind === 'array' ? `${key}[]` : key,
      in: location,
      kind,
      required: location === 'path' || (json.required ?? []).includes(key),
      schema,
      ...(description ? { description } : {}),
    };
  });
}

const integer = /^[+-]?\d{1,16}$/;
const decimal = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function where(spec: ParamSpec): string {
  return `${spec.in} parameter "${spec.name}"`;
}

function decodeOne(spec: ParamSpec, raw: string): unknown {
  switch (spec.kind) {
    case 'integer':
      if (!integer.test(raw)) throw badRequest(`Invalid ${where(spec)}: must be an integer.`);
      return Number(raw);
    case 'number':
      if (!decimal.test(raw)) throw badRequest(`Invalid ${where(spec)}: must be a number.`);
      return Number(raw);
    case 'boolean':
      if (raw !== 'true' && raw !== 'false')
        throw badRequest(`Invalid ${where(spec)}: must be true or false.`);
      return raw === 'true';
    default:
      return raw;
  }
}

/**
 * zod 4 leaves `issue.input` out unless asked: without it every wrong type (`"yes"` for a boolean)
 * would read as a missing value. It only fills in issues, so a valid request pays nothing for it.
 */
const reportInput = true;

/**
 * Reads the declared parameters from `values(name)` (every value sent under that name), checks
 * them against `object` and returns the typed result, defaults applied. Undeclared query
 * parameters are ignored.
 */
export function decodeParams<T extends z.ZodObject>(
  object: T | undefined,
  specs: readonly ParamSpec[],
  values: (name: string) => string[],
): z.output<T> {
  if (!object) return {} as z.output<T>;
  const raw: Record<string, unknown> = {};
  for (const spec of specs) {
    if (spec.kind === 'array') {
      const all = [...values(spec.name), ...values(spec.key)];
      if (all.length > 0) raw[spec.key] = all;
      continue;
    }
    const given = values(spec.name);
    if (given.length > 1) throw badRequest(`Invalid ${where(spec)}: give it at most once.`);
    if (given.length === 1) raw[spec.key] = decodeOne(spec, given[0]!);
  }
  const result = object.safeParse(raw, { reportInput });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const spec = specs.find((s) => s.key === issue.path[0]);
  const name = spec ? where(spec) : 'parameter';
  if (issue.code === 'invalid_type' && issue.input === undefined) throw badRequest(`Missing ${name}.`);
  throw badRequest(`Invalid ${name}: ${describeIssue(issue)}.`);
}

/** Checks a JSON body against a strict zod object. */
export function decodeBody<T extends z.ZodObject>(object: T, body: unknown): z.output<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('The body must be a JSON object.');
  const result = object.safeParse(body, { reportInput });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    const allowed = Object.keys(object.shape).join(', ');
    throw badRequest(
      `Unknown body propert${issue.keys.length > 1 ? 'ies' : 'y'} ${keys}; allowed: ${allowed}.`,
    );
  }
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`))
    .join('');
  if (issue.code === 'invalid_type' && issue.input === undefined)
    throw badRequest(`Missing body property "${path}".`);
  throw badRequest(`Invalid body property "${path}": ${describeIssue(issue)}.`);
}

const formats: Record<string, string> = {
  datetime: 'an ISO 8601 date-time with Z or an offset, e.g. 2026-01-31T09:00:00Z',
  url: 'an absolute URL',
  email: 'an email address',
  regex: 'in the expected format',
};

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(issue.expected === 'int' ? 'integer' : issue.expected)}`;
    case 'too_big':
      if (issue.origin === 'array') return `give at most ${issue.maximum} values`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long`;
      return `must be at most ${issue.maximum}`;
    case 'too_small':
      if (issue.origin === 'array')
        return `give at least ${issue.minimum} value${issue.minimum === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return `must be at least ${issue.minimum} characters long`;
      return `must be at least ${issue.minimum}`;
    case 'invalid_format':
      return `must be ${formats[issue.format] ?? `a valid ${issue.format}`}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    default:
      return issue.message;
  }
}
