// A text index's definition as mongod keeps it (its fixSpec): the key pattern becomes
// `{_fts: "text", _ftsx: 1}`, the fields move into `weights`, and `default_language`,
// `language_override` and `textIndexVersion: 3` are filled in. TextSpec then reads a document as
// mongod's FTSElementIterator does and scores its terms as FTSSpec::scoreDocument.
import { CommandError, ErrorCode } from './errors.js';
import { toDouble } from './numbers.js';
import {
  type IndexTerm,
  lookUpLanguage,
  notOfferedLanguage,
  type TextLanguage,
  tokenizeForIndex,
} from './text-tokenizer.js';
import { type Document, isPlainObject } from './values.js';

export const TEXT_KEY: Document = { _fts: 'text', _ftsx: 1 };
const WILDCARD = '$**';
const MAX_WORD_WEIGHT = 100_000;

const cannotCreate = (message: string) => new CommandError(ErrorCode.CannotCreateIndex, message);

/** Whether a createIndexes key pattern asks for a text index. */
export function isTextKeyPattern(key: Document): boolean {
  return Object.entries(key).some(([field, dir]) => dir === 'text' || field === '_fts');
}

function validLanguage(value: unknown, what: string): string {
  if (typeof value !== 'string') throw cannotCreate(`${what} needs a string type`);
  const language = lookUpLanguage(value);
  if (language === undefined) throw cannotCreate(`${what} is not valid`);
  if (language === 'other') throw notOfferedLanguage(value);
  return value;
}

/**
 * The stored form of a text index spec (`spec` has been through the generic option checks). A
 * spec already in stored form (reopened from disk, `$out`) comes out the same.
 */
export function normalizeTextSpec(spec: Document): Document {
  const key = spec.key as Document;
  const fields: Record<string, number> = {};
  for (const [field, dir] of Object.entries(key)) {
    if (field === '_fts' || field === '_ftsx') continue;
    if (dir === 'text') fields[field] = 1;
    else
      throw new CommandError(
        ErrorCode.NotImplemented,
        'a compound text index (text keys with other keys) is not supported by the embedded engine',
      );
  }
  if (key._fts !== undefined && key._fts !== 'text') throw cannotCreate('expecting _fts:"text"');
  const weights = spec.weights;
  if (isPlainObject(weights)) {
    for (const [field, value] of Object.entries(weights)) {
      const weight = toDouble(value);
      if (weight === undefined) throw cannotCreate('weight for text index needs numeric type');
      fields[field] = Math.trunc(weight);
    }
  } else if (weights === WILDCARD) fields[WILDCARD] = 1;
  else if (weights !== undefined) throw cannotCreate("text index option 'weights' must be an object");
  const names = Object.keys(fields).sort();
  if (names.length === 0)
    throw cannotCreate("text index option 'weights' must specify fields or the wildcard");
  const sortedWeights: Document = {};
  for (const name of names) {
    const weight = fields[name]!;
    if (weight <= 0 || weight >= MAX_WORD_WEIGHT)
      throw cannotCreate(
        `text index weight must be in the exclusive interval (0,${MAX_WORD_WEIGHT}) but found: ${weight}`,
      );
    if (name !== WILDCARD && name.split('.').some((part) => part === '' || part.startsWith('$')))
      throw cannotCreate(`weight cannot be on field '${name}'`);
    sortedWeights[name] = weight;
  }
  const languageOverride = spec.language_override ?? 'language';
  if (typeof languageOverride !== 'string') throw cannotCreate('language_override must be a string');
  if (languageOverride === '' || languageOverride.startsWith('$') || languageOverride.includes('.'))
    throw cannotCreate('language_override is not valid');
  const version = spec.textIndexVersion === undefined ? 3 : toDouble(spec.textIndexVersion);
  if (version !== 3) throw cannotCreate(`bad textIndexVersion: ${String(spec.textIndexVersion)}`);
  const {
    key: _key,
    weights: _w,
    default_language,
    language_override: _l,
    textIndexVersion: _t,
    ...rest
  } = spec;
  return {
    v: rest.v,
    key: { ...TEXT_KEY },
    name: rest.name,
    ...rest,
    weights: sortedWeights,
    default_language: validLanguage(default_language ?? 'english', 'default_language'),
    language_override: languageOverride,
    textIndexVersion: 3,
  };
}

/** One string a document gives the index, with its weight and language; true stops the walk. */
export type TextVisitor = (text: string, weight: number, language: TextLanguage) => unknown;

/** The weighted paths as a tree of field names, for documents walked without the wildcard. */
interface PathNode {
  weight: number | undefined;
  children: Map<string, PathNode>;
}

/** Term → score of one document (FTSSpec::scoreDocument), and whether all its text is plain. */
export interface DocumentTerms {
  scores: Map<string, number>;
  plain: boolean;
}

// Scoring scratch: the string being scored, its terms (their counters in IndexTerm) and tokens.
let stamp = 0;
const seen: IndexTerm[] = [];
let tokens = 0;

/** Counts one occurrence: the n-th occurrence of a term adds 1 / 2^(n-1) to its frequency. */
function count(term: IndexTerm): void {
  if (term.stamp !== stamp) {
    term.stamp = stamp;
    term.count = 1;
    term.frequency = 1;
    seen.push(term);
  } else {
    term.frequency += 1 / 2 ** term.count;
    term.count++;
  }
  tokens++;
}

export class TextSpec {
  /** Weighted paths in lexicographic order, as mongod's weight map. */
  private readonly paths: string[];
  private readonly weights: number[];
  readonly wildcard: boolean;
  readonly defaultLanguage: TextLanguage;
  readonly languageOverride: string;

  private readonly tree: PathNode = { weight: undefined, children: new Map() };

  constructor(spec: Document) {
    const weights = spec.weights as Document;
    const paths = Object.keys(weights)
      .filter((p) => p !== WILDCARD)
      .sort();
    this.paths = paths;
    this.weights = paths.map((p) => toDouble(weights[p]) ?? 1);
    this.wildcard = WILDCARD in weights;
    this.defaultLanguage = lookUpLanguage(String(spec.default_language)) as TextLanguage;
    this.languageOverride = String(spec.language_override);
    paths.forEach((path, i) => {
      let node = this.tree;
      for (const part of path.split('.')) {
        let child = node.children.get(part);
        if (!child) {
          child = { weight: undefined, children: new Map() };
          node.children.set(part, child);
        }
        node = child;
      }
      node.weight = this.weights[i];
    });
  }

  /** The language a (sub-)document's strings are read in: its override field, else its parent's. */
  private languageOf(obj: Document, parent: TextLanguage): TextLanguage {
    const value = obj[this.languageOverride];
    if (value === undefined) return parent;
    if (typeof value !== 'string')
      throw new CommandError(17261, 'found language override field in document with non-string type');
    const language = lookUpLanguage(value);
    if (language === undefined) throw new CommandError(17262, `language override unsupported: ${value}`);
    if (language === 'other') throw notOfferedLanguage(value);
    return language;
  }

  /** First weighted path not below `name` (mongod's lower_bound). */
  private lowerBound(name: string): number {
    let lo = 0;
    let hi = this.paths.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.paths[mid]! < name) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Visits the strings the index reads, as mongod's FTSElementIterator: strings at a weighted path
   * (any string under the wildcard), through sub-documents and arrays of them but not arrays
   * within arrays, each sub-document in its own language if it names one.
   */
  forEachText(doc: Document, visit: TextVisitor): void {
    const language = this.languageOf(doc, this.defaultLanguage);
    if (this.wildcard) this.walk(doc, language, '', false, visit);
    else this.walkTree(doc, this.tree, language, visit);
  }

  /** Without the wildcard only the weighted paths can hold text: they are looked up, not searched. */
  private walkTree(obj: Document, node: PathNode, language: TextLanguage, visit: TextVisitor): boolean {
    for (const [field, child] of node.children) {
      if (!Object.hasOwn(obj, field)) continue;
      if (this.visitValue(obj[field], child, language, false, visit)) return true;
    }
    return false;
  }

  private visitValue(
    value: unknown,
    node: PathNode,
    language: TextLanguage,
    inArray: boolean,
    visit: TextVisitor,
  ): boolean {
    if (typeof value === 'string')
      return node.weight !== undefined && visit(value, node.weight, language) === true;
    if (Array.isArray(value)) {
      if (inArray) return false;
      for (const element of value) if (this.visitValue(element, node, language, true, visit)) return true;
      return false;
    }
    if (isPlainObject(value) && node.children.size > 0)
      return this.walkTree(value, node, this.languageOf(value, language), visit);
    return false;
  }

  /** mongod's walk, field by field against the sorted weights, for the wildcard. */
  private walk(
    obj: Document | unknown[],
    language: TextLanguage,
    parent: string,
    inArray: boolean,
    visit: TextVisitor,
  ): boolean {
    const fields = Array.isArray(obj) ? obj.map((_, i) => String(i)) : Object.keys(obj);
    for (const field of fields) {
      const value = (obj as Document)[field];
      if (field === this.languageOverride) continue;
      const dotted = parent === '' ? field : inArray ? parent : `${parent}.${field}`;
      const object = isPlainObject(value);
      const i = this.lowerBound(object ? `${dotted}.` : dotted);
      const found = i < this.paths.length;
      // As mongod: a field takes the weight of the first weighted path not below it.
      const weight = found ? this.weights[i]! : 1;
      let stop = false;
      if (typeof value === 'string') stop = visit(value, weight, language) === true;
      else if (object) stop = this.walk(value, this.languageOf(value, language), dotted, false, visit);
      else if (Array.isArray(value)) stop = this.walk(value, language, dotted, true, visit);
      if (stop) return true;
    }
    return false;
  }

  /** The document's terms with their scores (mongod's _scoreStringV2, summed over its strings). */
  scoreDocument(doc: Document): DocumentTerms {
    const scores = new Map<string, number>();
    let plain = true;
    this.forEachText(doc, (text, weight, language) => {
      stamp++;
      seen.length = 0;
      tokens = 0;
      plain = tokenizeForIndex(text, language, count) && plain;
      for (const { term, count, frequency } of seen) {
        const coefficient = (0.5 * count) / tokens + 0.5;
        // A string that is exactly its one term is worth a little more.
        const adjustment = text.length === term.length && text.toLowerCase() === term ? 1.1 : 1;
        scores.set(term, (scores.get(term) ?? 0) + weight * frequency * coefficient * adjustment);
      }
    });
    return { scores, plain };
  }
}
