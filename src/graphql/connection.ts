/**
 * Lists as Relay connections. Every list pages forward only (keyset cursors, newest first), so a
 * list field takes `first` and `after` and nothing else: the relay plugin's `t.connection` always
 * adds `before` and `last` too (it has no option to leave them out), which the server could only
 * refuse. Lists are declared with `listType` and `pageArgs` instead.
 */
import type { ObjectRef } from '@pothos/core';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '../domain/pagination.js';
import { builder } from './builder.js';

/** The connection type `name` (and its edge type, `<name>Edge`) over `node`. */
export function listType<T>(name: string, node: ObjectRef<typeof builder.$inferSchemaTypes, T>) {
  return builder.connectionObject({ type: node, name }, { name: `${name}Edge` });
}

/** `first` and `after`, for every list; `after` describes what a cursor of another list does there. */
export function pageArgs(afterDescription = 'The endCursor of the previous page of this list.') {
  return builder.args((t) => ({
    first: t.int({
      description: `Page size: 1 to ${MAX_PAGE_SIZE}, ${DEFAULT_PAGE_SIZE} when omitted.`,
    }),
    after: t.string({ description: afterDescription }),
  }));
}

export function connectionOf<T>(page: Page<T>) {
  return {
    edges: page.items.map((node, i) => ({ node, cursor: page.cursors[i]! })),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      // Always false: nothing pages backward. Kept because PageInfo is Relay's shape, which clients
      // and their caches select whole; the spec allows false when paging with first/after.
      hasPreviousPage: false,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors.at(-1) ?? null,
    },
  };
}
