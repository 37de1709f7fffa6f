/**
 * Rate limits for every operation, whichever door it came through (REST runs its documents
 * through this same Yoga instance). A download request counts in the download bucket, an
 * operation that selects a transcript or a summary in the heavy bucket, anything else in the
 * general one. Every counted response carries
 * RateLimit-* headers; a refused one is RATE_LIMITED (429) with Retry-After.
 */
import type { DocumentNode, SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Collections } from '../db/collections.js';
import {
  type Bucket,
  countRequest,
  type RateLimitPolicy,
  type RateLimitState,
} from '../domain/rate-limits.js';
import type { GraphQLContext } from './context.js';
import { graphQLError } from './errors.js';
import { contentFieldOf, isIncluded } from './selection.js';

const heavyFields = new Set(['transcript', 'defaultSummary']);
const downloadFields = new Set(['requestDownload']);

/** Whether the operation, with its variables applied to @skip/@include, selects a heavy field. */
export function selectsHeavyField(document: DocumentNode, variables: Record<string, unknown>): boolean {
  return selectsOneOf(heavyFields, document, variables);
}

/** The bucket an operation counts in: a download request's own, else heavy or general. */
export function bucketOf(document: DocumentNode, variables: Record<string, unknown>): Bucket {
  if (selectsOneOf(downloadFields, document, variables)) return 'download';
  return selectsHeavyField(document, variables) ? 'heavy' : 'general';
}

function selectsOneOf(
  fields: ReadonlySet<string>,
  document: DocumentNode,
  variables: Record<string, unknown>,
): boolean {
  const fragments = new Map(
    document.definitions.flatMap((d) =>
      d.kind === 'FragmentDefinition' ? [[d.name.value, d] as const] : [],
    ),
  );
  const visited = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): boolean =>
    !!set &&
    set.selections.some((s) => {
      if (!isIncluded(s, variables)) return false;
      if (s.kind === 'Field') return fields.has(contentFieldOf(s.name.value)) || walk(s.selectionSet);
      if (s.kind === 'InlineFragment') return walk(s.selectionSet);
      if (visited.has(s.name.value)) return false;
      visited.add(s.name.value);
      return walk(fragments.get(s.name.value)?.selectionSet);
    });
  return document.definitions.some((d) => d.kind === 'OperationDefinition' && walk(d.selectionSet));
}

export function rateLimit(
  collections: Collections,
  policy: RateLimitPolicy,
  onLimited: (bucket: Bucket) => void,
): Plugin<GraphQLContext> {
  const states = new WeakMap<Request, RateLimitState>();
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext & { request: Request };
      if (!context.viewer) return;
      const bucket = bucketOf(args.document, args.variableValues ?? {});
      const state = await countRequest(collections, policy, context.viewer.credentialId, bucket);
      states.set(context.request, state);
      if (!state.allowed) {
        onLimited(bucket);
        const what = {
          heavy: "transcript and summary requests (this key's heavy bucket; other requests count apart)",
          download: "download requests (this key's download bucket; other requests count apart)",
          general: "requests (this key's general bucket)",
        }[bucket];
        setResultAndStopExecution({
          errors: [
            graphQLError(
              'RATE_LIMITED',
              `Too many ${what}: at most ${state.limit} per ${policy.windowSeconds} s. Retry in ${state.resetSeconds} s (Retry-After).`,
            ),
          ],
        });
      }
    },
    onResponse({ request, response }) {
      const state = states.get(request);
      if (!state) return;
      response.headers.set('ratelimit-limit', String(state.limit));
      response.headers.set('ratelimit-remaining', String(state.remaining));
      response.headers.set('ratelimit-reset', String(state.resetSeconds));
      if (!state.allowed) response.headers.set('retry-after', String(state.resetSeconds));
    },
  };
}
