// A command's `let`: user variables for its `$expr` filters and pipelines (`$$name`). As mongod,
// each value is an expression evaluated once, before any document is read, so
// `{ $literal: '$x' }` is the string '$x' and `{ $rand: {} }` one number for the whole command; a
// variable can use those defined before it.
import { evalExpr } from 'mingo/core';
import { toCommandError } from './errors.js';
import { mingoOptions } from './mingo.js';
import type { Document } from './values.js';

/** The variables a `let` document defines, by name; undefined without one. */
export function evaluateLet(spec: Document | undefined): Document | undefined {
  if (spec === undefined) return undefined;
  const variables: Document = {};
  try {
    for (const [name, expression] of Object.entries(spec)) {
      variables[name] = evalExpr({}, expression, mingoOptions({ variables }));
    }
  } catch (err) {
    throw toCommandError(err);
  }
  return variables;
}
