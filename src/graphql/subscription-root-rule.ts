/**
 * The GraphQL spec forbids @skip and @include on the root selections of a subscription (graphql-js
 * 17 validates it, 16 does not): a subscription must always subscribe to exactly one field. Without
 * this rule a skipped root field crashes the executor and the client sees a 500. It is a
 * validation error like graphql-js's own: Yoga gives it GRAPHQL_VALIDATION_FAILED (400).
 */
import {
  type ASTVisitor,
  type DefinitionNode,
  type DirectiveNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  validate,
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
            { nodes: directive },
          ),
        );
    },
  };
}

/**
 * Run alone, before graphql-js's rules: its SingleFieldSubscriptionsRule evaluates the root's
 * @include(if: $variable) without the variables and throws "was not provided a runtime value".
 */
export function subscriptionRootRule(): Plugin {
  return {
    onValidate({ params, setResult }) {
      const subscribes = params.documentAST.definitions.some(
        (d: DefinitionNode) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'subscription',
      );
      if (!subscribes) return;
      const errors = validate(params.schema, params.documentAST, [subscriptionRootWithoutConditions]);
      if (errors.length > 0) setResult(errors);
    },
  };
}
