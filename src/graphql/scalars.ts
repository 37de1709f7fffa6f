/** Custom scalars: DateTime (ISO 8601 in UTC with a trailing Z), Email, JSON (output only), File (input only). */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../domain/email.js';
import { RawJson } from '../domain/raw-json.js';

const isoWithZone = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/**
 * `new Date` rolls impossible parts over (2024-02-30 is 1 March, 24:00 the next day): the parts
 * must come back unchanged from a UTC date built of them, and the offset must be a real one.
 */
function isRealDateTime(parts: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as number[];
  const offsetHours = Number(parts[8] ?? 0);
  const offsetMinutes = Number(parts[9] ?? 0);
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day);
  date.setUTCHours(hour!, minute, second);
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
}

function parseDateTime(value: unknown): Date {
  const parts = typeof value === 'string' ? isoWithZone.exec(value) : null;
  if (!parts) {
    throw badInput('DateTime must be an ISO 8601 date-time with Z or an offset, e.g. 2026-01-31T09:00:00Z.');
  }
  const date = new Date(value as string);
  if (Number.isNaN(date.getTime()) || !isRealDateTime(parts))
    throw badInput(`Not a valid date-time: ${value}`);
  return date;
}

export const DateTime = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An instant as ISO 8601 in UTC with a trailing Z, e.g. 2026-01-31T09:00:00Z.',
  serialize: (value) => {
    if (value instanceof Date) return value.toISOString();
    throw new TypeError('DateTime cannot represent a non-Date value');
  },
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseEmail(value: unknown): string {
  if (typeof value !== 'string' || value.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(value))
    throw badInput(`Not a valid email address: ${String(value)}`);
  return value.toLowerCase();
}

export const Email = new GraphQLScalarType<string, string>({
  name: 'Email',
  description: 'An email address; compared case-insensitively.',
  serialize: (value) => String(value),
  parseValue: parseEmail,
  parseLiteral: (ast) => parseEmail(ast.kind === Kind.STRING ? ast.value : undefined),
});

const outputOnly = (): never => {
  throw badInput('JSON is an output type: it cannot be given as input.');
};

/**
 * Stored JSON handed on as it is (a RawJson): the REST door and webhook bodies copy its bytes into
 * their answers, /graphql's answer carries its value.
 */
export const Json = new GraphQLScalarType<never, RawJson>({
  name: 'JSON',
  description: 'A JSON value (any type), sent as stored.',
  serialize: (value) => {
    if (value instanceof RawJson) return value;
    throw new TypeError('JSON serialises stored JSON only');
  },
  parseValue: outputOnly,
  parseLiteral: outputOnly,
});

const isFile = (value: unknown): value is File =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as File).stream === 'function' &&
  typeof (value as File).type === 'string';

/**
 * A file sent with a GraphQL multipart request (the GraphQL multipart request spec, which Yoga
 * reads): its value is a web File, with its content type and bytes.
 */
export const Upload = new GraphQLScalarType<File, never>({
  name: 'File',
  description:
    'A file sent in a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec).',
  serialize: () => {
    throw new TypeError('File is an input type');
  },
  parseValue: (value) => {
    // Yoga's File may be its fetch ponyfill's, not this runtime's: what a file has is what counts.
    if (isFile(value)) return value;
    throw badInput('A File is sent as a part of a multipart request (operations, map, then the file).');
  },
  parseLiteral: () => {
    throw badInput('A File cannot be written in the document: send it as a part of a multipart request.');
  },
});
