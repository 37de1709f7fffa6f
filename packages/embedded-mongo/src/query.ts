// Query helpers on top of mingo: sorting with mongod's BSON order (sort.ts), projection
// (projection.ts), pipelines; the planner and executor that find documents are planner.ts and
// plan-executor.ts.
import { Aggregator } from 'mingo/aggregator';
import { ProcessingMode } from 'mingo/core';
import type { Options } from 'mingo/types';
import { toCommandError } from './errors.js';
import { type MingoExtras, mingoOptions } from './mingo.js';
import type { Document } from './values.js';

export { compileProjection } from './projection.js';
export { parseSort, sortMatches } from './sort.js';

/** Runs an aggregation pipeline with mingo. Input documents are cloned so stages cannot alter storage. */
export function runPipeline(input: Document[], pipeline: Document[], extras: MingoExtras = {}): Document[] {
  try {
    const opts = {
      ...(mingoOptions(extras) as unknown as Document),
      processingMode: ProcessingMode.CLONE_INPUT,
    };
    return new Aggregator(pipeline, opts as unknown as Options).run(input) as Document[];
  } catch (err) {
    throw toCommandError(err);
  }
}
