/**
 * Introspection is public: the schema is no secret (it is committed as schema.graphql), and tools
 * such as GraphiQL fetch it before anyone has typed a key. A query whose root selections are only
 * `__schema`, `__type` or `__typename` (through fragments too) is therefore answered without
 * reading the credential at all: no key, a valid key and a wrong or placeholder key all get the
 * schema, nothing is counted by the failed-auth throttle or the rate limits. An operation that
 * also selects data is authenticated as usual.
 *
 * The decision is taken on the document Yoga itself parsed (its parse cache included), in the
 * plugin's onParse hook, which Yoga runs before it builds the context: no second parse.
 */
import { type DocumentNode, getOperationAST, type SelectionSetNode } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';

const introspectionFields = new Set(['__schema', '__type', '__typename']);

/** Whether the operation that runs (`operationName`, or the only one) selects introspection alone. */
export function isIntrospectionOnly(document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'query') return false;
  const visited = new Set<string>();
  const only = (set: SelectionSetNode): boolean =>
    set.selections.every((selection) => {
      if (selection.kind === 'Field') return introspectionFields.has(selection.name.value);
      if (selection.kind === 'InlineFragment') return only(selection.selectionSet);
      const name = selection.name.value;
      if (visited.has(name)) return true;
      visited.add(name);
      const fragment = document.definitions.find(
        (d) => d.kind === 'FragmentDefinition' && d.name.value === name,
      );
      return fragment?.kind === 'FragmentDefinition' && only(fragment.selectionSet);
    });
  return only(operation.selectionSet);
}

/** The contexts (one per request) whose operation is introspection alone. */
const introspectionRequests = new WeakSet<object>();

/** Marks the request's context when the parsed operation is introspection alone. */
export function publicIntrospection(): Plugin {
  return {
    onParse:
      () =>
      ({ result, context }) => {
        if (!result || result instanceof Error) return;
        const { params } = context as Partial<YogaInitialContext>;
        if (isIntrospectionOnly(result, params?.operationName)) introspectionRequests.add(context);
      },
  };
}

/** Whether this request may be answered without authentication (see publicIntrospection). */
export function isPublicIntrospection(context: object): boolean {
  return introspectionRequests.has(context);
}
