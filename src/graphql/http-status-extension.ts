/**
 * Yoga uses `extensions.http` of errors to pick the response status and then strips it from the
 * body. Clients of this API may rely on `extensions.http.status` (it says so in the README), so
 * this plugin puts it back when the result is serialised.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

type Serialisable = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

export function exposeHttpStatus(): Plugin {
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result) || !result || typeof result !== 'object' || !('errors' in result)) return;
      const original = result as Serialisable;
      const statuses = (original.errors ?? []).map(
        (e) => (e.extensions?.http as { status?: number } | undefined)?.status,
      );
      if (!statuses.some((s) => s !== undefined)) return;
      original.stringify = (sanitised) =>
        JSON.stringify({
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
