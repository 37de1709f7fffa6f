// The top-level fields a find, count or distinct reads of each document: those its filter tests,
// its sort orders by and its projection (or distinct key) keeps, and `_id`. Given them, a large document is read from the store in part
// (records.ts `read`). Undefined whenever that is not certain: no projection or one that excludes,
// an expression, $where or $expr: the whole document then.
import { filterRoots, rootOf } from './indexes.js';
import { type Document, isPlainObject } from './values.js';

/** Query operators that read no field of the document ($text's own reads are the TEXT stage's). */
const READS_NO_FIELD = new Set(['$text', '$comment']);

export function readFields(
  filter: Document,
  {
    sort,
    projection,
    keep,
  }: { sort?: Document | undefined; projection?: Document | undefined; keep?: string[] },
): ReadonlySet<string> | undefined {
  // What the answer is made of: a find's projection, or a distinct's key (none for a count).
  const kept = keep?.map(rootOf) ?? projectionRoots(projection);
  if (!kept) return undefined;
  const compared = comparedFields(filter, sort);
  return compared && new Set([...compared, ...kept]);
}

/**
 * The top-level fields a query compares: those its filter tests and its sort orders by, and `_id`.
 * A sort with a limit reads these alone of each document it sorts (plan-executor.ts).
 */
export function comparedFields(filter: unknown, sort: unknown): ReadonlySet<string> | undefined {
  if (!isPlainObject(filter)) return undefined;
  const tested = filterRoots(
    Object.fromEntries(Object.entries(filter).filter(([key]) => !READS_NO_FIELD.has(key))),
  );
  if (!tested) return undefined;
  const ordered = Object.entries(isPlainObject(sort) ? sort : {})
    .filter(([, direction]) => !isPlainObject(direction)) // {$meta: 'textScore'}
    .map(([path]) => rootOf(path));
  return new Set(['_id', ...tested, ...ordered]);
}

/** The roots an inclusion projection keeps; null for any other projection (or none). */
function projectionRoots(projection: Document | undefined): string[] | null {
  if (!projection || Object.keys(projection).length === 0) return null;
  const roots: string[] = [];
  for (const [path, spec] of Object.entries(projection)) {
    if (path === '_id') continue;
    if (spec === true || (typeof spec === 'number' && spec !== 0)) roots.push(rootOf(path));
    else if (isPlainObject(spec) && Object.keys(spec).length === 1 && '$meta' in spec) continue;
    else if (isPlainObject(spec) && Object.keys(spec).length === 1 && '$elemMatch' in spec)
      roots.push(rootOf(path));
    // An exclusion (all but some), $slice (which keeps the other fields), an expression, a literal.
    else return null;
  }
  // Only `_id` or $meta: mongod then gives every field (with $meta's beside them).
  return roots.length > 0 ? roots : null;
}
