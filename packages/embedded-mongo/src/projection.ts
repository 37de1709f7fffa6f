// find's projections as mongod applies them: mingo's `$project` does the inclusions, exclusions
// and expressions; `$slice` (which keeps every other field when it stands alone) and the field
// order of the result (the stored document's, `_id` first) are done here.
import { Aggregator } from 'mingo/aggregator';
import { Query } from 'mingo/query';
import { badValue, toCommandError } from './errors.js';
import { type MingoExtras, mingoOptions } from './mingo.js';
import { toDouble } from './numbers.js';
import { checkProjectionKinds } from './projection-kinds.js';
import { isTextScoreMeta, textScoreUnavailable } from './text-score.js';
import { cloneValue, type Document, isNumeric, isPlainObject } from './values.js';

type Transform = (doc: Document) => Document;

/** The array at `path` (plain sub-documents only) cut as `{ $slice: n }` or `[skip, limit]` asks. */
function applySlice(doc: Document, path: string, arg: number | [number, number]): void {
  const parts = path.split('.');
  let current: Document = doc;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (!isPlainObject(next)) return;
    current = next;
  }
  const leaf = parts[parts.length - 1]!;
  const array = current[leaf];
  if (!Array.isArray(array)) return;
  if (typeof arg === 'number') {
    current[leaf] = arg >= 0 ? array.slice(0, arg) : array.slice(Math.max(0, array.length + arg));
  } else {
    const [skip, limit] = arg;
    const start = skip >= 0 ? skip : Math.max(0, array.length + skip);
    current[leaf] = array.slice(start, start + limit);
  }
}

function sliceArgument(value: unknown): number | [number, number] {
  if (isNumeric(value)) return Math.trunc(toDouble(value) as number);
  if (Array.isArray(value) && value.length === 2 && value.every(isNumeric)) {
    const [skip, limit] = value.map((v) => Math.trunc(toDouble(v) as number)) as [number, number];
    if (limit <= 0) throw badValue(`Invalid $slice syntax. The limit must be a positive number: ${limit}`);
    return [skip, limit];
  }
  throw badValue('Invalid $slice syntax. $slice takes a number or an array of [skip, limit]');
}

/** `out`'s fields in the order they have in `original`, fields it computed last. */
function inDocumentOrder(out: Document, original: Document): Document {
  const ordered: Document = {};
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(out, key)) continue;
    const value = out[key];
    const before = original[key];
    ordered[key] = isPlainObject(value) && isPlainObject(before) ? inDocumentOrder(value, before) : value;
  }
  for (const key of Object.keys(out)) if (!Object.hasOwn(ordered, key)) ordered[key] = out[key];
  return ordered;
}

function isInclusion(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return true; // an expression or a literal
}

function guarded(transform: Transform): Transform {
  return (doc) => {
    try {
      return transform(doc);
    } catch (err) {
      throw toCommandError(err);
    }
  };
}

/**
 * A projection of top-level fields only, all kept or all left out (`{a: 1, b: 1}`, `{_id: 0, a: 0}`):
 * the common case, picked from the stored document without mingo and without copying the fields
 * left out (a transcript's entries are thousands of sub-documents). Undefined for anything else.
 */
function fieldsOnly(spec: Document): Transform | undefined {
  const entries = Object.entries(spec);
  const plain = entries.every(
    ([path, value]) =>
      !path.includes('.') &&
      !path.startsWith('$') &&
      (typeof value === 'number' || typeof value === 'boolean'),
  );
  const kinds = new Set(entries.filter(([path]) => path !== '_id').map(([, value]) => isInclusion(value)));
  if (!plain || kinds.size > 1) return undefined; // mixed: mingo refuses it as mongod does
  const inclusion = kinds.has(true);
  const listed = new Map(entries.map(([path, value]) => [path, isInclusion(value)]));
  const keep = (key: string) => listed.get(key) ?? (key === '_id' || !inclusion);
  return (doc) => {
    const out: Document = {};
    for (const key of Object.keys(doc)) if (keep(key)) out[key] = cloneValue(doc[key]);
    return out;
  };
}

/**
 * Compiles a find-style projection into a per-document transform (documents are copied first).
 * Positional projections (`"arr.$": 1`) need the query, which is passed as `filter`; fields of
 * `{$meta: "textScore"}` take `textScore(doc)`, there for a `$text` query, and come last.
 */
export function compileProjection(
  projection: unknown,
  filter?: Document,
  extras?: MingoExtras,
  textScore?: (doc: Document) => number | undefined,
): Transform | undefined {
  if (projection === undefined || projection === null) return undefined;
  if (!isPlainObject(projection)) throw badValue('projection must be an object');
  if (Object.keys(projection).length === 0) return undefined;
  checkProjectionKinds(projection);
  const scored = Object.keys(projection).filter((path) => isTextScoreMeta(projection[path]));
  if (scored.length > 0) {
    if (!textScore) throw textScoreUnavailable();
    const rest = Object.fromEntries(Object.entries(projection).filter(([path]) => !scored.includes(path)));
    const base = compileProjection(rest, filter, extras);
    return (doc) => {
      const out = base ? base(doc) : cloneValue(doc);
      for (const path of scored) out[path] = textScore(doc);
      return out;
    };
  }
  const spec: Document = {};
  const slices: Array<[string, number | [number, number]]> = [];
  for (const [path, value] of Object.entries(projection)) {
    if (isPlainObject(value) && Object.keys(value).length === 1 && '$slice' in value) {
      slices.push([path, sliceArgument(value.$slice)]);
    } else {
      // pymongo and mongosh may send 1.0: mingo only knows JS numbers.
      spec[path] = isNumeric(value) ? toDouble(value) : value;
    }
  }
  if (Object.keys(spec).some((k) => k.endsWith('.$'))) {
    const query = new Query(filter ?? {}, mingoOptions(extras));
    return guarded((doc) => (query.find([cloneValue(doc)], spec).all()[0] as Document | undefined) ?? {});
  }
  const fields = slices.length === 0 ? fieldsOnly(spec) : undefined;
  if (fields) return fields;
  const inclusion = Object.entries(spec).some(([path, value]) => path !== '_id' && isInclusion(value));
  if (inclusion) for (const [path] of slices) spec[path] = 1;
  const aggregator =
    Object.keys(spec).length > 0 ? new Aggregator([{ $project: spec }], mingoOptions()) : null;
  const transform = guarded((doc) => {
    const copy = cloneValue(doc);
    let out = aggregator ? (aggregator.run([copy])[0] as Document) : copy;
    for (const [path, arg] of slices) applySlice(out, path, arg);
    if (inclusion) out = inDocumentOrder(out, doc);
    return out;
  });
  transform({}); // surface invalid projections at compile time
  return transform;
}
