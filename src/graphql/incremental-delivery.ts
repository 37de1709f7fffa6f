/**
 * @defer and @stream (incremental delivery): Yoga's defer-stream plugin brings their validation
 * rules and the multipart/mixed and event-stream answers; compiled-execution.ts runs such
 * documents in the executor that delivers them. One thing is left to check: `@stream(initialCount:)`
 * must not be negative, which only the variables can tell, and which the executor would report as
 * an internal error (500) rather than the client's.
 */
import { GraphQLStreamDirective } from '@graphql-tools/utils';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { BREAK, type DocumentNode, getDirectiveValues, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphQLError } from './errors.js';

function negativeInitialCount(document: DocumentNode, variables: Record<string, unknown>): boolean {
  let negative = false;
  visit(document, {
    Field(node) {
      const count = getDirectiveValues(GraphQLStreamDirective, node, variables)?.initialCount;
      if (typeof count !== 'number' || count >= 0) return undefined;
      negative = true;
      return BREAK;
    },
  });
  return negative;
}

export function incrementalDelivery(): Plugin[] {
  return [
    useDeferStream(),
    {
      onExecute({ args, setResultAndStopExecution }) {
        if (negativeInitialCount(args.document, args.variableValues ?? {}))
          setResultAndStopExecution({
            errors: [
              graphQLError(
                'BAD_USER_INPUT',
                '@stream(initialCount:) is the number of items sent at once: 0 or more.',
              ),
            ],
          });
      },
    },
  ];
}
