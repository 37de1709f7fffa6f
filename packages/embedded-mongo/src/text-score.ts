// `{$meta: "textScore"}`: the score a `$text` search gave a document, in find's projection and
// sort and in an aggregation's stages. mingo knows no metadata, so in a pipeline the score travels
// as a hidden field: each `$meta` becomes a reference to it, inclusion projections keep it, and it
// is taken off the results.
import { CommandError } from './errors.js';
import { type Document, isPlainObject } from './values.js';

export function textScoreUnavailable(): CommandError {
  return new CommandError(40218, 'query requires text score metadata, but it is not available');
}

export function isTextScoreMeta(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 1 && value.$meta === 'textScore';
}

function mentionsTextScore(value: unknown): boolean {
  if (isTextScoreMeta(value)) return true;
  if (Array.isArray(value)) return value.some(mentionsTextScore);
  return isPlainObject(value) && Object.values(value).some(mentionsTextScore);
}

/** Whether a find projection asks for the score. */
export function projectsTextScore(projection: unknown): boolean {
  return isPlainObject(projection) && Object.values(projection).some(isTextScoreMeta);
}

/** The field the score travels in through a pipeline; no stored document has it. */
export const TEXT_SCORE_FIELD = '__embedded_text_score__';

export function pipelineUsesTextScore(stages: Document[]): boolean {
  return stages.some(mentionsTextScore);
}

function referencingScore(value: unknown): unknown {
  if (isTextScoreMeta(value)) return `$${TEXT_SCORE_FIELD}`;
  if (Array.isArray(value)) return value.map(referencingScore);
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const [k, v] of Object.entries(value)) out[k] = referencingScore(v);
  return out;
}

function isInclusion(spec: Document): boolean {
  return Object.entries(spec).some(
    ([field, v]) => field !== '_id' && v !== 0 && v !== false && !(typeof v === 'number' && v === 0),
  );
}

/** The stages with every `{$meta: "textScore"}` reading the hidden field. */
export function withTextScoreField(stages: Document[]): Document[] {
  return stages.map((stage) => {
    const [name] = Object.keys(stage);
    const body = stage[name!];
    if (name === '$sort' && isPlainObject(body)) {
      // mongod sorts by the score from high to low, whatever the key is called.
      const sort: Document = {};
      for (const [k, v] of Object.entries(body)) {
        if (isTextScoreMeta(v)) sort[TEXT_SCORE_FIELD] = -1;
        else sort[k] = v;
      }
      return { $sort: sort };
    }
    const rewritten = referencingScore(body);
    if (name === '$project' && isPlainObject(rewritten) && isInclusion(rewritten))
      return { $project: { ...rewritten, [TEXT_SCORE_FIELD]: 1 } };
    return { [name!]: rewritten };
  });
}

export function withoutTextScoreField(docs: Document[]): Document[] {
  for (const doc of docs) delete doc[TEXT_SCORE_FIELD];
  return docs;
}
