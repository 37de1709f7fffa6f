/** Custom scalars: DateTime (ISO 8601 in UTC with a trailing Z) and Email. */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { EMAIL_PATTERN } from '../domain/email.js';

const isoWithZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string' || !isoWithZone.test(value)) {
    throw badInput('DateTime must be an ISO 8601 date-time with Z or an offset, e.g. 2026-01-31T09:00:00Z.');
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw badInput(`Not a valid date-time: ${value}`);
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
  if (typeof value !== 'string' || value.length > 254 || !EMAIL_PATTERN.test(value))
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
