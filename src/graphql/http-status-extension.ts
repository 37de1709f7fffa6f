/**
 * Yoga uses `extensions.http` of errors to pick the response status and then strips it from the
 * body. Clients of this API may rely on `extensions.http.status` (docs/api/errors.md says so), so
 * this plugin puts it back when the result is serialised (for a document that does not parse or
 * validate, sent by a client accepting application/json, Yoga answers 200 as GraphQL over HTTP
 * prescribes: docs/api/graphql.md says so). It also makes every refusal of the HTTP layer such an error:
 *
 * - Query parameters `variables` / `extensions` that are not JSON (GET, form bodies) make Yoga's
 *   parser throw a bare SyntaxError, which masking turned into a 500; it is a 400 BAD_REQUEST.
 * - An unsupported content type (415) and an unacceptable Accept (406) were empty responses; they
 *   are errors with a code too.
 * - A body over the size limit (Yoga's 413) closes the connection, so what was not read is not drained.
 */
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { answerBytes } from './content-bytes.js';

type Serialisable = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

function requestError(message: string, status: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status } } });
}

export function exposeHttpStatus(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      // Yoga's own parsers are chosen before this plugin's hook runs; none means the content type is not one.
      if (!requestParser) {
        // Thrown when parsing (after every hook), so a refused method still answers 405 first.
        setRequestParser(() => {
          throw requestError(
            'Unsupported content type: send application/json (or GET with query parameters).',
            415,
          );
        });
        return;
      }
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (error instanceof SyntaxError)
            throw requestError('The variables or extensions parameter is not valid JSON.', 400);
          throw error;
        }
      });
    },
    onResponse({ response }) {
      // A body refused for its size is not read: close the connection rather than drain it.
      if (response.status === 413) response.headers.set('connection', 'close');
    },
    onResultProcess({ result, resultProcessor, acceptableMediaTypes, setResultProcessor }) {
      if (!resultProcessor) {
        const acceptable = [...new Set(acceptableMediaTypes)].join(', ');
        setResultProcessor((unanswered, fetchAPI) => {
          // A subscription that cannot be streamed to this client ends here.
          if (Symbol.asyncIterator in unanswered)
            unanswered[Symbol.asyncIterator]()
              .return?.()
              ?.catch(() => {});
          const error = requestError(
            `Not acceptable: this operation can be answered as ${acceptable}. Send an Accept header naming one of these (a subscription, or a document with @defer or @stream, is answered in parts).`,
            406,
          );
          return new fetchAPI.Response(JSON.stringify({ errors: [error.toJSON()] }), {
            status: 406,
            headers: { 'content-type': 'application/json; charset=utf-8', accept: acceptable },
          });
        }, 'application/json');
        return;
      }
      if (Array.isArray(result) || !result || typeof result !== 'object' || !('errors' in result)) return;
      const original = result as Serialisable;
      const statuses = (original.errors ?? []).map(
        (e) => (e.extensions?.http as { status?: number } | undefined)?.status,
      );
      if (!statuses.some((s) => s !== undefined)) return;
      original.stringify = (sanitised) =>
        answerBytes({
          ...sanitised,
          errors: sanitised.errors?.map((error: GraphQLError, i) => {
            const json = error.toJSON();
            const status = statuses[i];
            return status === undefined
              ? json
              : { ...json, extensions: { ...json.extensions, http: { status } } };
          }),
        });
    },
  };
}
