/**
 * The GraphQL documents the REST door runs (rest-compat/operations/*.graphql): read, parsed and
 * validated against the schema once, when the door is made. A document that does not validate
 * stops the start-up: a broken REST endpoint never reaches a client.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type GraphQLSchema, Kind, parse, validate } from 'graphql';

export interface Operation {
  /** The file name without `.graphql`, e.g. `ListMeetings`. */
  name: string;
  /** The operation's own name inside the document, sent as `operationName`. */
  operationName: string;
  /** The document's source text, sent as `query`. */
  source: string;
}

export const operationsFolder = new URL('./operations/', import.meta.url);

export class InvalidOperationError extends Error {
  override name = 'InvalidOperationError';
}

/** Every document of `folder` (a file: URL ending in /), checked against `schema`. */
export function loadOperations(
  schema: GraphQLSchema,
  folder: URL = operationsFolder,
): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.graphql'))) {
    const name = file.slice(0, -'.graphql'.length);
    const source = readFileSync(new URL(file, folder), 'utf8');
    let document: ReturnType<typeof parse>;
    try {
      document = parse(source);
    } catch (error) {
      throw new InvalidOperationError(`rest-compat/operations/${file}: ${(error as Error).message}`);
    }
    const problems = validate(schema, document);
    if (problems.length > 0) {
      throw new InvalidOperationError(
        `rest-compat/operations/${file} does not validate: ${problems.map((p) => p.message).join('; ')}`,
      );
    }
    const definitions = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    const operationName = definitions[0]?.name?.value;
    if (definitions.length !== 1 || !operationName) {
      throw new InvalidOperationError(
        `rest-compat/operations/${file} must hold exactly one named operation.`,
      );
    }
    operations.set(name, { name, operationName, source });
  }
  return operations;
}

/** The operation named `name`, or a start-up failure when the route table names a missing file. */
export function operationOf(operations: Map<string, Operation>, name: string): Operation {
  const operation = operations.get(name);
  if (!operation) throw new InvalidOperationError(`rest-compat/operations/${name}.graphql is missing.`);
  return operation;
}
