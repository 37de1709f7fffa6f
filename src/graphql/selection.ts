/** Reading what a query selects below a field, through fragments, whatever the aliases. */
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

function fieldsOf(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
): FieldNode[] {
  if (!set) return [];
  return set.selections.flatMap((s) => {
    if (s.kind === 'Field') return [s];
    if (s.kind === 'InlineFragment') return fieldsOf(s.selectionSet, fragments);
    return fieldsOf(fragments[s.name.value]?.selectionSet, fragments);
  });
}

/** Names of the fields selected at `path` (field names, e.g. ['edges', 'node']) below the current field. */
export function selectedFieldNames(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  let level: FieldNode[] = [...info.fieldNodes];
  for (const name of path) {
    level = level
      .flatMap((f) => fieldsOf(f.selectionSet, info.fragments))
      .filter((f) => f.name.value === name);
  }
  return new Set(level.flatMap((f) => fieldsOf(f.selectionSet, info.fragments)).map((f) => f.name.value));
}
