/**
 * The GraphQL documents the REST door runs (rest-compat/operations/*.graphql): read, parsed and
 * validated against the schema once, when the door is made. A document that does not validate
 * stops the start-up: a broken REST endpoint never reaches a client.
 *
 * Selections several documents share are spelled once, in operations/fragments.graphql. Each
 * document gets the shared fragments it spreads (directly or through another fragment) appended,
 * and only those, so it still validates on its own (NoUnusedFragments) and goes to Yoga as one
 * self-contained query. The webhook payload (src/delivery/payload.ts) completes its document the
 * same way.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  Kind,
  NoUnusedFragmentsRule,
  parse,
  print,
  specifiedRules,
  type ValidationRule,
  validate,
  visit,
} from 'graphql';

export interface Operation {
  /** The file name without `.graphql`, e.g. `ListMeetings`. */
  name: string;
  /** The operation's own name inside the document, sent as `operationName`. */
  operationName: string;
  /** The document's source text with the shared fragments it spreads, sent as `query`. */
  source: string;
}

export const operationsFolder = new URL('./operations/', import.meta.url);

/** The file of an operations folder that holds the shared fragments (and no operation). */
export const FRAGMENTS_FILE = 'fragments.graphql';

/** The shared fragments by name, each with the text appended to the documents spreading it. */
export type SharedFragments = ReadonlyMap<string, { definition: FragmentDefinitionNode; source: string }>;

export class InvalidOperationError extends Error {
  override name = 'InvalidOperationError';
}

/** Every .graphql file of `folder`, the fragments file included, in a stable order. */
export function documentFiles(folder: URL = operationsFolder): string[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.graphql'))
    .sort();
}

function parseDocument(source: string, where: string): DocumentNode {
  try {
    return parse(source);
  } catch (error) {
    throw new InvalidOperationError(`${where}: ${(error as Error).message}`);
  }
}

function checkAgainst(
  schema: GraphQLSchema,
  document: DocumentNode,
  where: string,
  rules: readonly ValidationRule[] = specifiedRules,
): void {
  const problems = validate(schema, document, rules);
  if (problems.length > 0) {
    throw new InvalidOperationError(
      `${where} does not validate: ${problems.map((p) => p.message).join('; ')}`,
    );
  }
}

function spreadNames(node: ASTNode): string[] {
  const names: string[] = [];
  visit(node, { FragmentSpread: (spread) => void names.push(spread.name.value) });
  return names;
}

/** The fragments of `folder`'s fragments.graphql (none without one), each checked against `schema`. */
export function loadSharedFragments(schema: GraphQLSchema, folder: URL = operationsFolder): SharedFragments {
  const where = `rest-compat/operations/${FRAGMENTS_FILE}`;
  const file = new URL(FRAGMENTS_FILE, folder);
  if (!existsSync(file)) return new Map();
  const document = parseDocument(readFileSync(file, 'utf8'), where);
  // Checked once here, used or not (the documents spreading a fragment check it again in context).
  checkAgainst(
    schema,
    document,
    where,
    specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule),
  );
  const fragments = new Map<string, { definition: FragmentDefinitionNode; source: string }>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION)
      throw new InvalidOperationError(`${where} must hold fragments only.`);
    fragments.set(definition.name.value, { definition, source: print(definition) });
  }
  return fragments;
}

/**
 * `source` with the shared fragments it spreads appended, parsed and validated against `schema`.
 * `where` names the document in errors. A spread of a fragment defined nowhere, and a document
 * defining a fragment of its own under a shared fragment's name, are refused.
 */
export function withSharedFragments(
  schema: GraphQLSchema,
  source: string,
  where: string,
  fragments: SharedFragments = loadSharedFragments(schema),
): { source: string; document: DocumentNode } {
  const own = parseDocument(source, where);
  const ownFragments = new Set<string>();
  for (const definition of own.definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const name = definition.name.value;
    if (fragments.has(name))
      throw new InvalidOperationError(
        `${where} defines fragment ${name}, which ${FRAGMENTS_FILE} defines already: spread that one.`,
      );
    ownFragments.add(name);
  }
  const needed = new Set<string>();
  const pending = spreadNames(own);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (ownFragments.has(name) || needed.has(name)) continue;
    const shared = fragments.get(name);
    if (!shared)
      throw new InvalidOperationError(
        `${where} spreads ...${name}, which neither it nor rest-compat/operations/${FRAGMENTS_FILE} defines.`,
      );
    needed.add(name);
    pending.push(...spreadNames(shared.definition));
  }
  if (needed.size === 0) {
    checkAgainst(schema, own, where);
    return { source, document: own };
  }
  // In the fragments file's order, so a document's text does not depend on the order of its spreads.
  const appended = [...fragments].filter(([name]) => needed.has(name)).map(([, f]) => f.source);
  const complete = [source.trimEnd(), ...appended].join('\n\n');
  const document = parseDocument(complete, where);
  checkAgainst(schema, document, where);
  return { source: complete, document };
}

/** Every operation document of `folder` (a file: URL ending in /), completed and checked against `schema`. */
export function loadOperations(
  schema: GraphQLSchema,
  folder: URL = operationsFolder,
): Map<string, Operation> {
  const fragments = loadSharedFragments(schema, folder);
  const operations = new Map<string, Operation>();
  for (const file of documentFiles(folder).filter((f) => f !== FRAGMENTS_FILE)) {
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
      throw new InvalidOperationError(`${where} must hold exactly one named operation.`);
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
