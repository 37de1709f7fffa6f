/**
 * Operation limits (GraphQL Armor, and our nesting limit before parsing). The numbers let the
 * largest legitimate query through (a page of 100 meetings with every content field, or users
 * with their permission teams) and refuse abusive ones before anything executes, as
 * OPERATION_LIMIT_EXCEEDED (400) with a message naming the limit, its maximum and what to do.
 * Armor's own messages begin "Syntax Error:" although nothing is wrong with the syntax, so its
 * rejections are replaced (its onReject hooks; propagateOnRejection off).
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type Source, type ValidationContext } from 'graphql';
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

/** The code of every limit's refusal (catalogued in src/http/error-catalog.ts). */
export const LIMIT_CODE = 'OPERATION_LIMIT_EXCEEDED';

const split = 'or split the operation into several requests.';

/** What each limit refuses, with its maximum and what to do instead. */
const limitMessages = {
  maxDepth: `The operation nests fields more than ${operationLimits.maxDepth} levels deep (the depth limit). Select fewer levels, or fetch the deeper part in another request.`,
  maxAliases: `The operation uses more than ${operationLimits.maxAliases} aliases (the alias limit). Use fewer aliases, ${split}`,
  maxTokens: `The document has more than ${operationLimits.maxTokens} tokens (the token limit). Pass long lists as variables rather than literals, ${split}`,
  maxCost: `The operation's estimated cost is over ${operationLimits.maxCost} (the cost limit: each field selected, times the page sizes above it). Ask for smaller pages (first) or fewer fields, ${split}`,
  maxDirectives: `The operation uses more than ${operationLimits.maxDirectives} directives (the directive limit). Use fewer @include/@skip, ${split}`,
  maxNesting: `The document nests brackets, braces and parentheses more than ${operationLimits.maxNesting} deep (the nesting limit). Flatten the values nested that deep, or pass them as variables.`,
} as const;

export function limitError(limit: keyof typeof limitMessages): GraphQLError {
  return new GraphQLError(limitMessages[limit], { extensions: { code: LIMIT_CODE, http: { status: 400 } } });
}

/**
 * Armor calls onReject with the validation context of a rule (depth, aliases, cost, directives):
 * our error is reported as a validation error, as graphql-js's own are. The token limit counts
 * while parsing and has no context: it throws, as a syntax error would.
 */
function rejectAs(limit: keyof typeof limitMessages) {
  return [
    (context: ValidationContext | null) => {
      if (!context) throw limitError(limit);
      context.reportError(limitError(limit));
    },
  ];
}

export function armor() {
  const refuse = (limit: keyof typeof limitMessages) => ({
    onReject: rejectAs(limit),
    propagateOnRejection: false,
  });
  return EnvelopArmorPlugin({
    maxDepth: { n: operationLimits.maxDepth, ...refuse('maxDepth') },
    maxAliases: { n: operationLimits.maxAliases, ...refuse('maxAliases') },
    maxTokens: { n: operationLimits.maxTokens, ...refuse('maxTokens') },
    costLimit: { maxCost: operationLimits.maxCost, ...refuse('maxCost') },
    maxDirectives: { n: operationLimits.maxDirectives, ...refuse('maxDirectives') },
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
          throw limitError('maxNesting');
        }
        return parseFn(source, options);
      });
    },
  };
}
