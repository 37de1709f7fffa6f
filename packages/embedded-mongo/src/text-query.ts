// `$text` in a query: where mongod accepts it (at the top level or within a top-level `$and`, once),
// its parameters, and the search string read as mongod's FTSQueryImpl reads it: words OR'ed,
// `"quoted phrases"` required, `-word` and `-"phrase"` excluded.
import { badValue, CommandError, ErrorCode } from './errors.js';
import {
  lookUpLanguage,
  notOfferedLanguage,
  type TextLanguage,
  type TokenOptions,
  tokenize,
} from './text-tokenizer.js';
import { type Document, isPlainObject, typeName } from './values.js';

export interface TextParams {
  search: string;
  language: string | undefined;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
}

/** A filter's `$text` and the conditions beside it. */
export interface TextFilter {
  params: TextParams;
  residual: Document;
}

function containsText(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsText);
  if (!isPlainObject(value)) return false;
  return Object.entries(value).some(([k, v]) => k === '$text' || containsText(v));
}

/** Counts the `$text`s where mongod allows one and refuses it everywhere else. */
function countTexts(filter: Document): number {
  let count = 0;
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$text') count++;
    else if (key === '$and' && Array.isArray(value)) {
      for (const part of value) if (isPlainObject(part)) count += countTexts(part);
    } else if (!containsText(value)) {
    } else if (key === '$nor') throw badValue('text expression not allowed in nor');
    else if (key === '$or')
      throw new CommandError(
        ErrorCode.NotImplemented,
        '$text inside $or is not supported by the embedded engine',
      );
    else if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      if (containsText(value.$elemMatch))
        throw badValue('$text can only be applied to the top-level document');
      throw badValue('unknown operator: $text');
    }
  }
  return count;
}

function withoutText(filter: Document): Document {
  const out: Document = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$text') continue;
    out[key] =
      key === '$and' && Array.isArray(value)
        ? value.map((p) => (isPlainObject(p) ? withoutText(p) : p))
        : value;
  }
  return out;
}

function field<T>(spec: Document, name: string, type: 'string' | 'boolean', fallback?: T): T {
  const value = spec[name];
  if (value === undefined) {
    if (fallback !== undefined || name !== '$search') return fallback as T;
    throw new CommandError(ErrorCode.NoSuchKey, `Missing expected field "${name}"`);
  }
  if (typeof value !== type)
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `"${name}" had the wrong type. Expected ${type === 'string' ? 'string' : 'bool'}, found ${typeName(value)}`,
    );
  return value as T;
}

function parseParams(text: unknown): TextParams {
  if (!isPlainObject(text)) throw badValue('$text expects an object');
  const params: TextParams = {
    search: field<string>(text, '$search', 'string'),
    language: field<string | undefined>(text, '$language', 'string'),
    caseSensitive: field(text, '$caseSensitive', 'boolean', false),
    diacriticSensitive: field(text, '$diacriticSensitive', 'boolean', false),
  };
  const known = ['$search', '$language', '$caseSensitive', '$diacriticSensitive'];
  if (Object.keys(text).some((k) => !known.includes(k))) throw badValue('extra fields in $text');
  return params;
}

/** The filter's `$text`, validated, with the rest of the filter; undefined when it has none. */
export function textFilterOf(filter: unknown): TextFilter | undefined {
  if (!isPlainObject(filter)) return undefined;
  const count = countTexts(filter);
  if (count === 0) return undefined;
  if (count > 1) throw badValue('Too many text expressions');
  let text: unknown;
  const find = (part: Document): void => {
    if ('$text' in part) text = part.$text;
    if (Array.isArray(part.$and)) for (const p of part.$and) if (isPlainObject(p)) find(p);
  };
  find(filter);
  return { params: parseParams(text), residual: withoutText(filter) };
}

// ------------------------------------------------------------------ the search string

export interface TextSearch {
  language: TextLanguage;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
  /** The terms looked up in the index (lower-case, stemmed, no stop words), sorted. */
  terms: string[];
  /** What a document must hold: one of `positive` (the terms, or their case/diacritic-sensitive forms)... */
  positive: Set<string>;
  /** ...none of `negated`... */
  negated: Set<string>;
  /** ...every phrase, and none of the negated phrases. */
  phrases: string[];
  negatedPhrases: string[];
}

const WHITESPACE = new Set(['\n', '\v', '\f', '\r', ' ']);

interface QueryToken {
  text: string;
  /** `-` or `"`; undefined for a run of other characters. */
  delimiter: string | undefined;
  offset: number;
  afterWhitespace: boolean;
}

/** mongod's FTSQueryParser: runs of characters, single `-` and `"`, and whether whitespace preceded. */
function queryTokens(raw: string): QueryToken[] {
  const kind = (c: string) => (WHITESPACE.has(c) ? 'space' : c === '-' || c === '"' ? 'delimiter' : 'text');
  const tokens: QueryToken[] = [];
  let pos = 0;
  const skipWhitespace = () => {
    const start = pos;
    while (pos < raw.length && kind(raw[pos]!) === 'space') pos++;
    return pos > start;
  };
  skipWhitespace();
  let afterWhitespace = true;
  while (pos < raw.length) {
    const start = pos++;
    const type = kind(raw[start]!);
    if (type === 'text') while (pos < raw.length && kind(raw[pos]!) === 'text') pos++;
    const end = pos;
    const previous = afterWhitespace;
    afterWhitespace = skipWhitespace();
    tokens.push({
      text: raw.slice(start, end),
      delimiter: type === 'delimiter' ? raw[start] : undefined,
      offset: start,
      afterWhitespace: previous,
    });
  }
  return tokens;
}

function languageOf(name: string | undefined, fallback: TextLanguage): TextLanguage {
  if (name === undefined) return fallback;
  const language = lookUpLanguage(name);
  if (language === undefined) throw badValue(`unsupported language: "${name}" for text index version 3`);
  if (language === 'other') throw notOfferedLanguage(name);
  return language;
}

/** Reads a search string as mongod's FTSQueryImpl::parse does. */
export function parseTextSearch(params: TextParams, defaultLanguage: TextLanguage): TextSearch {
  const language = languageOf(params.language, defaultLanguage);
  const raw = params.search;
  let positiveWords = '';
  let negativeWords = '';
  const phrases: string[] = [];
  const negatedPhrases: string[] = [];
  let inNegation = false;
  let inPhrase = false;
  let quoteOffset = 0;
  for (const token of queryTokens(raw)) {
    if (token.delimiter === undefined) {
      if (inPhrase && inNegation) continue; // the words of a negated phrase are no terms
      // A negation lasts until the next whitespace: `-foo-bar` negates both, `- foo` neither.
      if (inNegation && token.afterWhitespace) inNegation = false;
      if (inNegation) negativeWords += `${token.text} `;
      else positiveWords += `${token.text} `;
    } else if (token.delimiter === '-') {
      if (!inPhrase && token.afterWhitespace) inNegation = true;
    } else if (inPhrase) {
      const phrase = raw.slice(quoteOffset + 1, token.offset);
      (inNegation ? negatedPhrases : phrases).push(phrase);
      inPhrase = false;
    } else {
      inPhrase = true;
      if (inNegation && token.afterWhitespace) inNegation = false;
      quoteOffset = token.offset;
    }
  }
  const sensitive = params.caseSensitive || params.diacriticSensitive;
  const insensitiveOptions: TokenOptions = {
    stopWords: true,
    caseSensitive: false,
    diacriticSensitive: false,
  };
  const sensitiveOptions: TokenOptions = {
    stopWords: true,
    caseSensitive: params.caseSensitive,
    diacriticSensitive: params.diacriticSensitive,
  };
  const termsOf = (sentence: string, options: TokenOptions) => {
    const out = new Set<string>();
    tokenize(sentence, language, options, (term) => out.add(term));
    return out;
  };
  const terms = termsOf(positiveWords, insensitiveOptions);
  return {
    language,
    caseSensitive: params.caseSensitive,
    diacriticSensitive: params.diacriticSensitive,
    terms: [...terms].sort(),
    positive: sensitive ? termsOf(positiveWords, sensitiveOptions) : terms,
    negated: termsOf(negativeWords, sensitive ? sensitiveOptions : insensitiveOptions),
    phrases,
    negatedPhrases,
  };
}
