/**
 * Operation limits (GraphQL Armor). The numbers let the largest legitimate query through (a page
 * of 100 meetings with every content field, or users with their permission teams) and refuse
 * abusive ones with BAD_USER_INPUT before anything executes.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';

export const operationLimits = {
  maxDepth: 10,
  maxAliases: 15,
  maxTokens: 3000,
  // Armor's default weights (objects 2, scalars 1, x1.5 per level): the largest legitimate query costs ~39,000.
  maxCost: 50_000,
  maxDirectives: 20,
} as const;

function asBadUserInput(_context: unknown, error: GraphQLError): void {
  Object.assign(error.extensions, { code: 'BAD_USER_INPUT', http: { status: 400 } });
}

export function armor() {
  const onReject = [asBadUserInput];
  return EnvelopArmorPlugin({
    maxDepth: { n: operationLimits.maxDepth, onReject },
    maxAliases: { n: operationLimits.maxAliases, onReject },
    maxTokens: { n: operationLimits.maxTokens, onReject },
    costLimit: { maxCost: operationLimits.maxCost, onReject },
    maxDirectives: { n: operationLimits.maxDirectives, onReject },
    blockFieldSuggestion: { enabled: false },
  });
}
