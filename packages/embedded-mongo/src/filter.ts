// A query filter compiled once into a matcher. Its own module because both storage (partial
// indexes) and the query planner need it, and the planner in turn needs storage's collections.
import { Query } from 'mingo/query';
import { badValue, toCommandError } from './errors.js';
import { prepareFilter } from './filter-syntax.js';
import { compileFieldFilter, type MingoExtras, mingoOptions } from './mingo.js';
import { type Document, isPlainObject } from './values.js';

export interface Matcher {
  test(doc: Document): boolean;
}

const MATCH_ALL: Matcher = { test: () => true };

export function compileFilter(filter: unknown, extras?: MingoExtras): Matcher {
  if (filter === undefined || filter === null) return MATCH_ALL;
  if (!isPlainObject(filter)) throw badValue('query filter must be an object');
  if ('$comment' in filter) {
    const { $comment: _comment, ...rest } = filter;
    filter = rest;
  }
  if (Object.keys(filter as Document).length === 0) return MATCH_ALL;
  try {
    const condition = prepareFilter(filter as Document);
    const fields = compileFieldFilter(condition, extras?.collation);
    const query = fields ? null : new Query(condition, mingoOptions(extras));
    return {
      test: (doc) => {
        try {
          return fields ? fields(doc) : query!.test(doc);
        } catch (err) {
          throw toCommandError(err);
        }
      },
    };
  } catch (err) {
    throw toCommandError(err);
  }
}
