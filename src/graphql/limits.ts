/**
 * Operation limits (GraphQL Armor). The numbers let the largest legitimate query through (a page
 * of 100 meetings with every content field, or users with their permission teams) and refuse
 * abusive ones with BAD_USER_INPUT before anything executes.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const operationLimits = {
  maxDepth: 10,
  maxAliases: 15,
  maxTokens: 3000,
  // Armor's default weights (objects 2, scalars 1, x1.5 per level): the largest legitimate query costs ~39,000.
  maxCost: 50_000,
  maxDirectives: 20,
  // Brackets, braces and parentheses open at once: the largest legitimate document nests about 12.
  maxNesting: 64,
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

/**
 * How deep `source` nests brackets, braces and parentheses (outside strings and comments). One
 * pass over the text, no recursion: graphql-js parses values recursively, so a list nested a few
 * thousand deep overflows its stack before the token limit is reached.
 */
export function nestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        i += 3;
        while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
        i += 2;
      } else {
        i++;
        while (i < source.length && source[i] !== '"' && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      }
    } else if (c === '[' || c === '{' || c === '(') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === ']' || c === '}' || c === ')') {
      depth--;
    }
  }
  return deepest;
}

/** Refuses a document nested deeper than maxNesting before the parser sees it (see nestingDepth). */
export function nestingLimit(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source: string | Source, options) => {
        const text = typeof source === 'string' ? source : source.body;
        if (nestingDepth(text) > operationLimits.maxNesting) {
          throw new GraphQLError(
            `Syntax Error: the document nests brackets, braces and parentheses more than ${operationLimits.maxNesting} deep.`,
            { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } },
          );
        }
        return parseFn(source, options);
      });
    },
  };
}
