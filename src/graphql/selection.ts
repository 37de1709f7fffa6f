/**
 * Reading what a query selects below a field, through fragments and whatever the aliases, as
 * @skip / @include leave it (the REST layer maps include flags onto @include).
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  getDirectiveValues,
  isAbstractType,
  type NamedTypeNode,
  type SelectionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';

type Variables = GraphQLResolveInfo['variableValues'];

/** Whether @skip / @include, with the operation's variables, keep a selection. */
export function isIncluded(node: SelectionNode, variables: Variables): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

function fieldsOf(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Variables,
): FieldNode[] {
  if (!set) return [];
  return set.selections.flatMap((s) => {
    if (!isIncluded(s, variables)) return [];
    if (s.kind === 'Field') return [s];
    if (s.kind === 'InlineFragment') return fieldsOf(s.selectionSet, fragments, variables);
    return fieldsOf(fragments[s.name.value]?.selectionSet, fragments, variables);
  });
}

/** Names of the fields selected at `path` (field names, e.g. ['edges', 'node']) below the current field. */
export function selectedFieldNames(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  const { fragments, variableValues } = info;
  let level: FieldNode[] = [...info.fieldNodes];
  for (const name of path) {
    level = level
      .flatMap((f) => fieldsOf(f.selectionSet, fragments, variableValues))
      .filter((f) => f.name.value === name);
  }
  return new Set(
    level.flatMap((f) => fieldsOf(f.selectionSet, fragments, variableValues)).map((f) => f.name.value),
  );
}

/**
 * The content field a field shows: itself, or for a `…Json` twin of Meeting (meeting-content.ts)
 * the field it is the stored JSON of, and for `transcriptEntries` (its pages) the transcript.
 * Limits and refusals that name content apply to them all.
 */
export const contentFieldOf = (name: string): string =>
  name === 'transcriptEntries' ? 'transcript' : name.endsWith('Json') ? name.slice(0, -4) : name;

/**
 * The fields selected below `fieldNodes` (one response key's nodes, merged) on the object type
 * `type`, by response key in the order the answer shows them, each with every node that asks for
 * it: graphql-js's own collection (execution/collectFields.ts, which it does not export), through
 * inline fragments and fragment spreads (each spread once), as @skip / @include leave them.
 */
export function collectSubfields(
  info: Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'variableValues'>,
  type: GraphQLObjectType,
  fieldNodes: readonly FieldNode[],
): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const applies = (condition: NamedTypeNode | undefined) => {
    if (!condition) return true;
    const named = typeFromAST(info.schema, condition);
    return named === type || (isAbstractType(named) && info.schema.isSubType(named, type));
  };
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (!isIncluded(selection, info.variableValues)) continue;
      if (selection.kind === 'Field') {
        const key = selection.alias?.value ?? selection.name.value;
        fields.set(key, [...(fields.get(key) ?? []), selection]);
      } else if (selection.kind === 'InlineFragment') {
        if (applies(selection.typeCondition)) collect(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = info.fragments[name];
        if (visited.has(name) || !fragment) continue;
        visited.add(name);
        if (applies(fragment.typeCondition)) collect(fragment.selectionSet);
      }
    }
  };
  for (const node of fieldNodes) if (node.selectionSet) collect(node.selectionSet);
  return fields;
}
