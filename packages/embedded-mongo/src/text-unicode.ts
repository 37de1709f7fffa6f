// The character rules of mongod's text indexes (textIndexVersion 3): which code points separate
// words, and how case and diacritics are folded away. mongod generates its tables from the Unicode
// character database; the same properties are asked of JavaScript's regular expressions here.

// mongod's delimiters: White_Space, Dash, Hyphen, Quotation_Mark, Terminal_Punctuation,
// Pattern_Syntax and STerm code points. JavaScript has no Hyphen property: its members that are not
// Dash are listed.
const DELIMITER =
  /[\p{White_Space}\p{Dash}\p{Quotation_Mark}\p{Terminal_Punctuation}\p{Pattern_Syntax}\p{Sentence_Terminal}\u00ad\u058a\u1806\u2010\u2011\u2e17\u30fb\ufe63\uff0d\uff65]/u;
const DIACRITIC = /\p{Diacritic}/u;
const DIACRITICS = /\p{Diacritic}/gu;

const APOSTROPHE = 0x27;

/** ASCII delimiters, English first: there the apostrophe belongs to the word (`don't`, `it's`). */
const ASCII_DELIMITERS = Uint8Array.from({ length: 128 }, (_, c) =>
  DELIMITER.test(String.fromCharCode(c)) ? 1 : 0,
);
const ENGLISH_ASCII_DELIMITERS = ASCII_DELIMITERS.map((d, c) => (c === APOSTROPHE ? 0 : d));
const otherDelimiters = new Map<number, boolean>();

export function asciiDelimiters(english: boolean): Uint8Array {
  return english ? ENGLISH_ASCII_DELIMITERS : ASCII_DELIMITERS;
}

/** Whether a code point above ASCII separates words. */
export function isWideDelimiter(cp: number): boolean {
  let delimiter = otherDelimiters.get(cp);
  if (delimiter === undefined) {
    delimiter = DELIMITER.test(String.fromCodePoint(cp));
    otherDelimiters.set(cp, delimiter);
  }
  return delimiter;
}

/**
 * A string that folds to itself without diacritics: ASCII without `^` and `` ` `` (the two ASCII
 * diacritics, which folding removes). Lower-casing is all such a string needs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are plain ASCII too.
const PLAIN = /^[\x00-\x5d\x5f\x61-\x7f]*$/;

export function isPlain(s: string): boolean {
  return PLAIN.test(s);
}

export interface Folding {
  /** Fold case (simple case folding, as mongod's kNormal mode). */
  caseFold: boolean;
  /** Remove diacritics: pure diacritic marks go, letters lose theirs (`é` → `e`). */
  stripDiacritics: boolean;
}

const foldedCodePoints = new Map<number, string>();

function lowerCodePoint(ch: string): string {
  // Simple case folding is one code point to one: upper then lower maps `ς` to `σ`, `ſ` to `s`;
  // anything that would become several code points (`ß`, `İ`) stays as it is.
  const upper = ch.toUpperCase();
  const lower = ([...upper].length === 1 ? upper : ch).toLowerCase();
  return [...lower].length === 1 && ch !== '\u0131' ? lower : ch;
}

function withoutDiacritics(ch: string): string {
  if (DIACRITIC.test(ch)) return '';
  // mongod keeps a letter's base only when it recomposes into one code point.
  const base = ch.normalize('NFD').replace(DIACRITICS, '').normalize('NFC');
  return [...base].length === 1 ? base : ch;
}

function foldCodePoint(cp: number, folding: Folding): string {
  const key = cp * 4 + (folding.caseFold ? 2 : 0) + (folding.stripDiacritics ? 1 : 0);
  let out = foldedCodePoints.get(key);
  if (out === undefined) {
    out = String.fromCodePoint(cp);
    if (folding.stripDiacritics) out = withoutDiacritics(out);
    if (folding.caseFold && out !== '') out = lowerCodePoint(out);
    foldedCodePoints.set(key, out);
  }
  return out;
}

/** `s` folded as mongod's caseFoldAndStripDiacritics folds it, code point by code point. */
export function foldString(s: string, folding: Folding): string {
  if (PLAIN.test(s)) return folding.caseFold ? s.toLowerCase() : s;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 128 && cp !== 0x5e && cp !== 0x60) out += folding.caseFold ? ch.toLowerCase() : ch;
    else out += foldCodePoint(cp, folding);
  }
  return out;
}

const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/**
 * mongod's phrase test: whether `phrase` is a substring of a string, both folded alike. A plain
 * phrase is looked for with a regular expression (case-insensitive unless the search is not), which
 * on a plain string answers exactly and cannot match across a character folding would change;
 * other strings are folded first. `plain` tells that the string is known to be plain.
 */
export function phraseMatcher(
  phrase: string,
  folding: Folding,
): (haystack: string, plain: boolean) => boolean {
  const needle = foldString(phrase, folding);
  // A plain string folds to a plain string, which cannot hold a phrase that is not.
  if (!PLAIN.test(needle))
    return (haystack, plain) => !plain && foldString(haystack, folding).includes(needle);
  const pattern = new RegExp(needle.replace(REGEXP_SPECIAL, '\\$&'), folding.caseFold ? 'i' : '');
  return (haystack, plain) =>
    pattern.test(haystack) ||
    (!plain && !PLAIN.test(haystack) && foldString(haystack, folding).includes(needle));
}
