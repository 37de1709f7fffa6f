// `$collStats` and `$indexStats`: the first stage of an aggregate, producing documents about the
// collection instead of reading it. The engine keeps no per-index access counts (ops is 0).
import { hostname } from 'node:os';
import { BSON, Long } from 'bson';
import { CommandError } from '../errors.js';
import type { Collection, Engine } from '../storage.js';
import { type Document, isPlainObject } from '../values.js';

function storageStats(coll: Collection | undefined): Document {
  let size = 0;
  for (const doc of coll?.docs.values() ?? []) size += BSON.calculateObjectSize(doc);
  const count = coll?.count ?? 0;
  const indexSizes: Document = {};
  for (const name of coll?.indexes.keys() ?? []) indexSizes[name] = 0;
  return {
    size,
    count,
    avgObjSize: count > 0 ? Math.floor(size / count) : 0,
    storageSize: size,
    nindexes: coll?.indexes.size ?? 0,
    totalIndexSize: 0,
    indexSizes,
  };
}

function collStats(spec: unknown, coll: Collection | undefined, ns: string): Document[] {
  if (!isPlainObject(spec)) {
    throw new CommandError(5447000, `$collStats must take a nested object but found: ${String(spec)}`);
  }
  const out: Document = { ns, host: hostname(), localTime: new Date() };
  if (spec.count !== undefined) out.count = coll?.count ?? 0;
  if (spec.storageStats !== undefined) out.storageStats = storageStats(coll);
  return [out];
}

function indexStats(coll: Collection | undefined, since: Date): Document[] {
  return [...(coll?.indexes.values() ?? [])].map((index) => ({
    name: index.name,
    key: { ...index.spec.key },
    host: hostname(),
    accesses: { ops: Long.ZERO, since },
    spec: { ...index.spec },
  }));
}

/** The documents a leading `$collStats` / `$indexStats` stage produces, or undefined for others. */
export function statsStageInput(
  stage: Document | undefined,
  engine: Engine,
  dbName: string,
  collection: string,
): Document[] | undefined {
  if (!stage) return undefined;
  const coll = engine.collection(dbName, collection);
  if ('$collStats' in stage) return collStats(stage.$collStats, coll, `${dbName}.${collection}`);
  if ('$indexStats' in stage) return indexStats(coll, engine.startedAt);
  return undefined;
}
