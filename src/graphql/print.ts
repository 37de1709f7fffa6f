/** The schema as SDL, as committed in schema.graphql at the repo root. */
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './schema/index.js';

export const schemaFile = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

export function printedSchema(): string {
  return `${printSchema(schema)}\n`;
}
