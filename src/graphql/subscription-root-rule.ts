/**
 * The GraphQL spec forbids @skip and @include on the root selections of a subscription (graphql-js
 * 17 validates it, 16 does not): a subscription must always subscribe to exactly one field. Without
 * this rule a skipped root field crashes the executor and the client sees a 500.
 */
import {
  type ASTVisitor,
  type DirectiveNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

function conditionalRootSelection(
  context: ValidationContext,
  set: SelectionSetNode,
  seen: Set<string>,
): DirectiveNode | undefined {
  for (const selection of set.selections) {
    const conditional = selection.directives?.find(
      (d) => d.name.value === 'skip' || d.name.value === 'include',
    );
    if (conditional) return conditional;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const inner = conditionalRootSelection(context, selection.selectionSet, seen);
      if (inner) return inner;
    } else if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      const inner = fragment && conditionalRootSelection(context, fragment.selectionSet, seen);
      if (inner) return inner;
    }
  }
  return undefined;
}

export function subscriptionRootWithoutConditions(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (node.operation !== 'subscription') return;
      const directive = conditionalRootSelection(context, node.selectionSet, new Set());
      if (directive)
        context.reportError(
          new GraphQLError(
            `A subscription's root field may not be conditional: remove @${directive.name.value}.`,
            { nodes: directive, extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } },
          ),
        );
    },
  };
}

export function subscriptionRootRule(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(subscriptionRootWithoutConditions);
    },
  };
}
