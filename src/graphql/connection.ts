/** From a domain page to a Relay connection. Lists page forward only (keyset, newest first). */
import { DomainError } from '../domain/errors.js';
import type { Page } from '../domain/pagination.js';

export function forwardOnly(args: { last?: number | null; before?: string | null }): void {
  if (args.last != null || args.before != null) {
    throw new DomainError('BAD_USER_INPUT', 'Lists page forward only: use first and after.');
  }
}

export function connectionOf<T>(page: Page<T>) {
  return {
    edges: page.items.map((node, i) => ({ node, cursor: page.cursors[i]! })),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: false,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors.at(-1) ?? null,
    },
  };
}
