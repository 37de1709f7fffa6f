// mongod's text tokenizer (textIndexVersion 3) for the languages the engine offers: English (stop
// words left out, words stemmed with Porter2, the Snowball English stemmer mongod uses) and `none`
// (words as they are). A word is lower-cased, checked against the stop words, stemmed, and only
// then stripped of diacritics, in mongod's order.
import { stem } from 'porter2';
import { CommandError, ErrorCode } from './errors.js';
import { ENGLISH_STOP_WORDS } from './text-stop-words.js';
import { asciiDelimiters, foldString, isWideDelimiter } from './text-unicode.js';

export type TextLanguage = 'english' | 'none';

/** The languages mongod knows, by name and ISO code (case-insensitive), in canonical form. */
const MONGOD_LANGUAGES: Record<string, string> = {
  none: 'none',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  hu: 'hungarian',
  it: 'italian',
  nb: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  es: 'spanish',
  sv: 'swedish',
  tr: 'turkish',
};
const CANONICAL = new Set(Object.values(MONGOD_LANGUAGES));

/**
 * A language name as the engine takes it: english or none; `other` for one mongod knows and the
 * engine does not stem (refused, see notOfferedLanguage); undefined for one mongod refuses too.
 */
export function lookUpLanguage(name: string): TextLanguage | 'other' | undefined {
  const lower = name.toLowerCase();
  const canonical = MONGOD_LANGUAGES[lower] ?? (CANONICAL.has(lower) ? lower : undefined);
  if (canonical === undefined) return undefined;
  return canonical === 'english' || canonical === 'none' ? canonical : 'other';
}

export function notOfferedLanguage(name: string): CommandError {
  return new CommandError(
    ErrorCode.NotImplemented,
    `text search in language "${name}" is not supported by the embedded engine (only english and none)`,
  );
}

export interface TokenOptions {
  /** Leave out stop words (the index and a search's terms do; matching a document does not). */
  stopWords: boolean;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
}

export const INDEX_TOKENS: TokenOptions = {
  stopWords: true,
  caseSensitive: false,
  diacriticSensitive: false,
};

const LOWER = { caseFold: true, stripDiacritics: false };
const STRIP = { caseFold: false, stripDiacritics: true };

/** The term a word gives, or null for a stop word. */
function termOf(word: string, english: boolean, options: TokenOptions): string | null {
  // Stop words are lower-case and keep their diacritics.
  const lower = foldString(word, LOWER);
  if (options.stopWords && english && ENGLISH_STOP_WORDS.has(lower)) return null;
  let term = options.caseSensitive ? word : lower;
  if (english) term = stem(term);
  return options.diacriticSensitive ? term : foldString(term, STRIP);
}

/**
 * A term of the index, with scratch counters for scoring one string at a time (text-spec.ts):
 * the index's words map to these records, so scoring a word costs one lookup.
 */
export interface IndexTerm {
  readonly term: string;
  /** The string being scored when the counters were last reset. */
  stamp: number;
  count: number;
  frequency: number;
}

/** Index terms by word (null: a stop word): a transcript says the same words again and again. */
const indexTerms: Record<TextLanguage, Map<string, IndexTerm | null>> = {
  english: new Map(),
  none: new Map(),
};
const TERM_CACHE_SIZE = 100_000;

function indexTermOf(word: string, language: TextLanguage): IndexTerm | null {
  const cache = indexTerms[language];
  let entry = cache.get(word);
  if (entry === undefined) {
    const term = termOf(word, language === 'english', INDEX_TOKENS);
    entry = term === null ? null : { term, stamp: -1, count: 0, frequency: 0 };
    if (cache.size >= TERM_CACHE_SIZE) cache.clear();
    cache.set(word, entry);
  }
  return entry;
}

/** The width in code units of the code point above ASCII at `at`, negative for a delimiter. */
function wideWidth(text: string, at: number): number {
  const c = text.charCodeAt(at);
  let cp = c;
  let width = 1;
  if (c >= 0xd800 && c <= 0xdbff && at + 1 < text.length) {
    const low = text.charCodeAt(at + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      cp = (c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      width = 2;
    }
  }
  return isWideDelimiter(cp) ? -width : width;
}

/** Set by scanWords: whether the text it read was plain (ASCII without `^` or `` ` ``). */
let scannedPlain = true;

/** Calls `word` with each word of `text` (the runs between delimiters). */
function scanWords(text: string, english: boolean, word: (value: string) => void): void {
  const ascii = asciiDelimiters(english);
  const n = text.length;
  let plain = true;
  let i = 0;
  while (i < n) {
    // Delimiters up to the next word (ASCII inline: this runs for every character indexed)...
    for (;;) {
      if (i >= n) {
        scannedPlain = plain;
        return;
      }
      const c = text.charCodeAt(i);
      if (c < 128) {
        if (ascii[c] === 0) break;
        if (c === 0x5e || c === 0x60) plain = false;
        i++;
      } else {
        plain = false;
        const w = wideWidth(text, i);
        if (w > 0) break;
        i -= w;
      }
    }
    // ...then the word, up to the next delimiter.
    const start = i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        if (ascii[c] === 1) break;
        i++;
      } else {
        plain = false;
        const w = wideWidth(text, i);
        if (w < 0) break;
        i += w;
      }
    }
    word(text.slice(start, i));
  }
  scannedPlain = plain;
}

/**
 * Calls `emit` with the terms of `text` in order. Returns whether the text is plain (ASCII without
 * `^` or `` ` ``), which lets phrase matching skip folding it.
 */
export function tokenize(
  text: string,
  language: TextLanguage,
  options: TokenOptions,
  emit: (term: string) => void,
): boolean {
  const english = language === 'english';
  scanWords(text, english, (word) => {
    const term = termOf(word, english, options);
    if (term !== null) emit(term);
  });
  return scannedPlain;
}

/** tokenize with the index's options, giving each term's record; `emit` is made once by its caller. */
export function tokenizeForIndex(
  text: string,
  language: TextLanguage,
  emit: (term: IndexTerm) => void,
): boolean {
  const english = language === 'english';
  scanWords(text, english, (word) => {
    const term = indexTermOf(word, language);
    if (term !== null) emit(term);
  });
  return scannedPlain;
}
