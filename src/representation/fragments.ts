/**
 * The selections the public shape is built from (fragments.graphql: RestMeeting, RestDownload…),
 * shared by every document that answers in that shape: the REST door's (rest-compat/operations)
 * and the delivery worker's (webhook events, transcript, summary and download deliveries). Each
 * document gets the fragments it spreads (directly or through another fragment) appended, and only
 * those, so it still validates on its own (NoUnusedFragments) and goes to Yoga as one
 * self-contained query. A document that does not validate stops the start-up.
 */
import { existsSync, readFileSync } from 'node:fs';
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

/** The file that holds the shared fragments (and no operation). */
export const fragmentsFile = new URL('./fragments.graphql', import.meta.url);

/** The shared fragments by name, each with the text appended to the documents spreading it. */
export type SharedFragments = ReadonlyMap<string, { definition: FragmentDefinitionNode; source: string }>;

export class InvalidDocumentError extends Error {
  override name = 'InvalidDocumentError';
}

export function parseDocument(source: string, where: string): DocumentNode {
  try {
    return parse(source);
  } catch (error) {
    throw new InvalidDocumentError(`${where}: ${(error as Error).message}`);
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
    throw new InvalidDocumentError(
      `${where} does not validate: ${problems.map((p) => p.message).join('; ')}`,
    );
  }
}

function spreadNames(node: ASTNode): string[] {
  const names: string[] = [];
  visit(node, { FragmentSpread: (spread) => void names.push(spread.name.value) });
  return names;
}

/** The fragments of `file` (none when there is no such file), each checked against `schema`. */
export function loadSharedFragments(schema: GraphQLSchema, file: URL = fragmentsFile): SharedFragments {
  const where = file.pathname.split('/').at(-1)!;
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
      throw new InvalidDocumentError(`${where} must hold fragments only.`);
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
      throw new InvalidDocumentError(
        `${where} defines fragment ${name}, which the shared fragments define already: spread that one.`,
      );
    ownFragments.add(name);
  }
  const needed = new Set<string>();
  const pending = spreadNames(own);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (ownFragments.has(name) || needed.has(name)) continue;
    const shared = fragments.get(name);
    if (!shared)
      throw new InvalidDocumentError(
        `${where} spreads ...${name}, which neither it nor the shared fragments define.`,
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
