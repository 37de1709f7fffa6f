// Views: `create` with `viewOn` and `pipeline` (and `collation`). A view is kept as a Collection
// whose options are `{ viewOn, pipeline, collation? }` and which holds no documents, so it is
// listed, dropped, renamed-refused and made durable as collections are (persistence.ts). Reading
// it runs its pipeline over what it is a view on (a collection, missing or empty, or another view)
// into a transient collection, which find, count, distinct and aggregate then read as they read
// any other: the effect of mongod's rewrite of a find into an aggregate of the view's pipeline
// then the query's $match, $sort, $skip, $limit and projection. Writes and index commands on a
// view fail with CommandNotSupportedOnView (166) (storage.ts's viewNotCollection).
import { parseCollation } from './collation.js';
import { CommandError, ErrorCode, failedToParse } from './errors.js';
import { runPipeline } from './query.js';
import { Collection, type Engine } from './storage.js';
import { cloneValue, type Document, isPlainObject, typeName } from './values.js';

/** mongod's limit on a chain of views on views. */
const MAX_VIEW_DEPTH = 20;
/** Stages a view's pipeline cannot have (mongod: OptionNotSupportedOnView). */
const WRITING_STAGES = ['$out', '$merge'];

/**
 * A view's definition from a `create` or `collMod`: `viewOn` a collection name, `pipeline` an
 * array of stages without `$out`/`$merge`. `collation`, for `create`, is kept as mongod lists it.
 */
export function viewDefinition(cmd: Document, command: 'create' | 'collMod'): Document {
  const { viewOn, pipeline = [] } = cmd;
  if (typeof viewOn !== 'string') {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.viewOn' is the wrong type '${typeName(viewOn)}', expected type 'string'`,
    );
  }
  if (viewOn.length === 0) throw new CommandError(ErrorCode.BadValue, "'viewOn' cannot be empty");
  if (!Array.isArray(pipeline)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.pipeline' is the wrong type '${typeName(pipeline)}', expected type 'array'`,
    );
  }
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "Each element of the 'pipeline' array must be an object",
      );
    }
    const name = Object.keys(stage)[0]!;
    if (WRITING_STAGES.includes(name)) {
      throw new CommandError(
        ErrorCode.OptionNotSupportedOnView,
        `${name} cannot be used in a view definition`,
      );
    }
  }
  const definition: Document = { viewOn, pipeline };
  if (command === 'create' && isPlainObject(cmd.collation) && Object.keys(cmd.collation).length > 0) {
    const collation = parseCollation(cmd.collation);
    if (collation) definition.collation = { ...collation.spec };
  }
  return definition;
}

/** Refuses a view definition that would make `name` depend on itself, or too deep a chain. */
export function checkViewChain(engine: Engine, dbName: string, name: string, viewOn: string): void {
  let next: string | undefined = viewOn;
  for (let depth = 1; next !== undefined; depth++) {
    if (next === name) {
      throw new CommandError(ErrorCode.GraphContainsCycle, `View cycle detected: ${name} -> ${viewOn}`);
    }
    if (depth > MAX_VIEW_DEPTH) {
      throw new CommandError(
        ErrorCode.ViewDepthLimitExceeded,
        `View depth too deep or view cycle detected. Maximum depth is ${MAX_VIEW_DEPTH}`,
      );
    }
    const coll = engine.collection(dbName, next);
    next = coll?.isView ? (coll.options.viewOn as string) : undefined;
  }
}

/** The documents a view presents: its pipeline over its source's documents. */
function viewDocuments(engine: Engine, view: Collection, depth = 1): Document[] {
  if (depth > MAX_VIEW_DEPTH) {
    throw new CommandError(
      ErrorCode.ViewDepthLimitExceeded,
      `View depth too deep or view cycle detected. Maximum depth is ${MAX_VIEW_DEPTH}`,
    );
  }
  const source = engine.collection(view.dbName, view.options.viewOn as string);
  const input = source?.isView
    ? viewDocuments(engine, source, depth + 1)
    : [...(source?.docs.values() ?? [])];
  return runPipeline(input, view.options.pipeline as Document[], {
    collectionResolver: (name) => collectionDocuments(engine, view.dbName, name),
    ...(view.defaultCollation && { collation: view.defaultCollation }),
  });
}

/**
 * The collection a read names: itself, or for a view a transient collection of the view's
 * documents (with the view's collation as its default), which no index constrains.
 */
export function readableCollection(engine: Engine, dbName: string, name: string): Collection | undefined {
  const coll = engine.collection(dbName, name);
  if (!coll?.isView) return coll;
  const options = coll.options.collation === undefined ? {} : { collation: coll.options.collation };
  const transient = new Collection(engine.records, dbName, name, options);
  transient.indexes.clear(); // a view's documents need not have a unique `_id`, nor any
  for (const doc of viewDocuments(engine, coll)) transient.insert(doc);
  return transient;
}

/** Copies of a collection's (or view's) documents, for `$lookup`, `$unionWith` & co. */
export function collectionDocuments(engine: Engine, dbName: string, name: string): Document[] {
  const coll = engine.collection(dbName, name);
  if (coll?.isView) return viewDocuments(engine, coll);
  return coll ? [...coll.docs.values()].map((d) => cloneValue(d)) : [];
}

/** listCollections' entry for a view. */
export function viewInfo(view: Collection): Document {
  return { name: view.name, type: 'view', options: { ...view.options }, info: { readOnly: true } };
}

/** A `pipeline` sent without `viewOn` (mongod's refusal). */
export function pipelineWithoutViewOn(): CommandError {
  return failedToParse("'pipeline' requires 'viewOn' to also be specified");
}
