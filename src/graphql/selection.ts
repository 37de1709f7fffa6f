/**
 * Reading what a query selects below a field, through fragments and whatever the aliases, as
 * @skip / @include leave it (the REST layer maps include flags onto @include).
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  getDirectiveValues,
  type SelectionNode,
  type SelectionSetNode,
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
