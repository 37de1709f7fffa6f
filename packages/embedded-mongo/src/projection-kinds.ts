// Which kind a projection is, inclusion or exclusion, checked as mongod's projection parser does:
// by find's projections (projection.ts) and by the aggregation's $project (mingo.ts).
import { CommandError } from './errors.js';
import { toDouble } from './numbers.js';
import { type Document, formatValue, isNumeric, isPlainObject } from './values.js';

/**
 * mongod's projection parser's refusals of a mix: the first field that is not `_id` makes the
 * projection an inclusion (a true value, an expression or a literal) or an exclusion (a false
 * value), and a later field of the other kind fails with the code naming it (31253, 31254, 31252,
 * 31310). `$meta`, `$slice` and `$elemMatch` are neither. Sub-projections share the kind.
 */
export function checkProjectionKinds(projection: Document): void {
  let kind: 'inclusion' | 'exclusion' | undefined;
  const visit = (spec: Document, topLevel: boolean) => {
    for (const [field, value] of Object.entries(spec)) {
      const isTopLevelId = topLevel && field === '_id';
      if (isPlainObject(value)) {
        const keys = Object.keys(value);
        if (keys.length === 1 && keys[0]!.startsWith('$')) {
          if (['$meta', '$slice', '$elemMatch'].includes(keys[0]!)) continue;
          if (kind === 'exclusion') {
            throw new CommandError(31252, 'Cannot use expression other than $meta in exclusion projection');
          }
          kind = 'inclusion';
        } else visit(value, false);
      } else if (typeof value === 'boolean' || isNumeric(value)) {
        const included = typeof value === 'boolean' ? value : toDouble(value) !== 0;
        if (isTopLevelId) continue;
        if (included && kind === 'exclusion') {
          throw new CommandError(31253, `Cannot do inclusion on field ${field} in exclusion projection`);
        }
        if (!included && kind === 'inclusion') {
          throw new CommandError(31254, `Cannot do exclusion on field ${field} in inclusion projection`);
        }
        kind = included ? 'inclusion' : 'exclusion';
      } else {
        if (kind === 'exclusion') {
          throw new CommandError(
            31310,
            `Cannot use an expression ${field}: ${formatValue(value)} in an exclusion projection`,
          );
        }
        kind = 'inclusion';
      }
    }
  };
  visit(projection, true);
}
