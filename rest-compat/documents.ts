/**
 * The GraphQL documents the REST door runs (rest-compat/operations/*.graphql): read, completed
 * with the shared fragments of the public shape (src/representation/fragments.graphql) they
 * spread, and validated against the schema once, when the door is made. A document that does not
 * validate stops the start-up: a broken REST endpoint never reaches a client.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type GraphQLSchema, Kind } from 'graphql';
import {
  InvalidDocumentError,
  loadSharedFragments,
  type SharedFragments,
  withSharedFragments,
} from '../src/representation/fragments.js';

export interface Operation {
  /** The file name without `.graphql`, e.g. `ListMeetings`. */
  name: string;
  /** The operation's own name inside the document, sent as `operationName`. */
  operationName: string;
  /** The document's source text with the shared fragments it spreads, sent as `query`. */
  source: string;
}

export const operationsFolder = new URL('./operations/', import.meta.url);

/** Every .graphql file of `folder`, in a stable order. */
export function documentFiles(folder: URL = operationsFolder): string[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.graphql'))
    .sort();
}

/** Every operation document of `folder` (a file: URL ending in /), completed and checked against `schema`. */
export function loadOperations(
  schema: GraphQLSchema,
  folder: URL = operationsFolder,
  fragments: SharedFragments = loadSharedFragments(schema),
): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const file of documentFiles(folder)) {
    const name = file.slice(0, -'.graphql'.length);
    const where = `rest-compat/operations/${file}`;
    const { source, document } = withSharedFragments(
      schema,
      readFileSync(new URL(file, folder), 'utf8'),
      where,
      fragments,
    );
    const definitions = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    const operationName = definitions[0]?.name?.value;
    if (definitions.length !== 1 || !operationName) {
      throw new InvalidDocumentError(`${where} must hold exactly one named operation.`);
    }
    operations.set(name, { name, operationName, source });
  }
  return operations;
}

/** The operation named `name`, or a start-up failure when the route table names a missing file. */
export function operationOf(operations: Map<string, Operation>, name: string): Operation {
  const operation = operations.get(name);
  if (!operation) throw new InvalidDocumentError(`rest-compat/operations/${name}.graphql is missing.`);
  return operation;
}
