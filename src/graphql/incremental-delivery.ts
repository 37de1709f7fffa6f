/**
 * @defer and @stream (incremental delivery): Yoga's defer-stream plugin brings their validation
 * rules and the multipart/mixed and event-stream answers; compiled-execution.ts runs such
 * documents in the executor that delivers them. One thing is left to check: `@stream(initialCount:)`
 * must not be negative, which only the variables can tell, and which the executor would report as
 * an internal error (500) rather than the client's.
 */
import { GraphQLStreamDirective } from '@graphql-tools/utils';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { type DocumentNode, type FieldNode, getDirectiveValues, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphQLError } from './errors.js';

/** The fields of a document that carry @stream, found once per document (Yoga keeps documents). */
const streamedFields = new WeakMap<DocumentNode, readonly FieldNode[]>();

function streamedFieldsOf(document: DocumentNode): readonly FieldNode[] {
  let fields = streamedFields.get(document);
  if (!fields) {
    const found: FieldNode[] = [];
    visit(document, {
      Field(node) {
        if (node.directives?.some((d) => d.name.value === GraphQLStreamDirective.name)) found.push(node);
      },
    });
    fields = found;
    streamedFields.set(document, fields);
  }
  return fields;
}

/** On every request (REST's pages too), so it reads only the fields carrying @stream. */
function negativeInitialCount(document: DocumentNode, variables: Record<string, unknown>): boolean {
  return streamedFieldsOf(document).some((node) => {
    const count = getDirectiveValues(GraphQLStreamDirective, node, variables)?.initialCount;
    return typeof count === 'number' && count < 0;
  });
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
