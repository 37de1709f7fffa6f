/**
 * What a search asks for, in the words MongoDB's English text indexes keep: lower-case, accents
 * folded, common words dropped, every word reduced to its Porter2 stem (the Snowball English
 * stemmer MongoDB uses). The search itself runs in the database (`$text`); this module reads the
 * user's search once, and finds where in a meeting it matched, the same way the index did.
 */
import { stem } from 'porter2';
import { DomainError } from './errors.js';

/**
 * MongoDB's English stop words (src/mongo/db/fts/stop_words_english.txt): its text indexes keep
 * none of them, so a word among them can never be found and is left out of a search instead. The
 * embedded engine carries its own copy, as MongoDB does: it must not depend on the service.
 */
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being
below between both but by can't cannot could couldn't did didn't do does doesn't doing don't down
during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her
here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's
its itself let's me more most mustn't my myself no nor not of off on once only or other ought our
ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than
that that's the their theirs them themselves then there there's these they they'd they'll they're
they've this those through to too under until up very was wasn't we we'd we'll we're we've were
weren't what what's when when's where where's which while who who's whom why why's with won't
would wouldn't you you'd you'll you're you've your yours yourself yourselves`.split(/\s+/),
);

/** Lower-case without accents: how the index compares text ("Café" finds "cafe"). */
export function folded(text: string): string {
  // Most text is ASCII, which has no accents to take off.
  return NON_ASCII.test(text)
    ? text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
    : text.toLowerCase();
}

const NON_ASCII = /[^ -~\t\n\r]/;
const WORD = /[\p{L}\p{N}']+/gu;

/** Stems already worked out: a meeting's few thousand distinct words are stemmed once each. */
const stems = new Map<string, string>();
const MAX_STEMS = 100_000;

/** A folded word's stem, or undefined for a stop word. */
function stemOf(word: string): string | undefined {
  let known = stems.get(word);
  if (known === undefined) {
    const bare = word.replace(/^'+|'+$/g, '');
    known = bare && !STOP_WORDS.has(bare) ? stem(bare) : '';
    if (stems.size >= MAX_STEMS) stems.clear();
    stems.set(word, known);
  }
  return known || undefined;
}

/** The stems a text is indexed under, stop words left out. */
export function stemsOf(text: string): string[] {
  const found: string[] = [];
  for (const [word] of folded(text).matchAll(WORD)) {
    const stem = stemOf(word);
    if (stem !== undefined) found.push(stem);
  }
  return found;
}

/** One thing a search requires: a word (matched by stem) or a quoted phrase (matched as written). */
export interface SearchClause {
  kind: 'word' | 'phrase';
  /** As typed (a phrase without its quotes). */
  text: string;
  /** The clause as a `$text` `$search` string. */
  search: string;
  /** A word's stem; a phrase's folded text. */
  key: string;
}

export interface Search {
  /** Each must occur somewhere in a meeting: its title, summary, action items or transcript. */
  required: SearchClause[];
  /** None may occur anywhere in the meeting. */
  excluded: SearchClause[];
}

export const MAX_SEARCH_LENGTH = 500;
/** Each clause costs a text query per searched collection. */
export const MAX_SEARCH_CLAUSES = 10;

/**
 * Reads a search: words, "quoted phrases", and -word or -"phrase" to exclude. Words every meeting
 * has ("the", "and") are dropped, as the index drops them; a search with nothing left to find is
 * refused rather than answered with nothing.
 */
export function parseSearch(text: string): Search {
  if (text.length > MAX_SEARCH_LENGTH)
    throw new DomainError('BAD_USER_INPUT', `A search is at most ${MAX_SEARCH_LENGTH} characters.`);
  const search: Search = { required: [], excluded: [] };
  const seen = new Set<string>();
  for (const [, minus, phrase, word] of text.matchAll(/(-?)(?:"([^"]*)"?|([^\s"]+))/g)) {
    const clauses = phrase !== undefined ? phraseClause(phrase) : wordClauses(word!);
    for (const clause of clauses) {
      const id = `${minus}${clause.kind}:${clause.key}`;
      if (seen.has(id)) continue;
      seen.add(id);
      (minus ? search.excluded : search.required).push(clause);
    }
  }
  if (search.required.length === 0)
    throw new DomainError(
      'BAD_USER_INPUT',
      'The search has nothing to find: give at least one word that is not excluded and not a common word such as "the", or a "quoted phrase".',
    );
  if (search.required.length + search.excluded.length > MAX_SEARCH_CLAUSES)
    throw new DomainError(
      'BAD_USER_INPUT',
      `A search has at most ${MAX_SEARCH_CLAUSES} words and phrases (common words such as "the" do not count).`,
    );
  return search;
}

function phraseClause(phrase: string): SearchClause[] {
  const text = phrase.trim().replace(/\s+/g, ' ');
  // A phrase of common words only cannot be looked up in the index: MongoDB finds nothing.
  if (stemsOf(text).length === 0) return [];
  return [{ kind: 'phrase', text, search: `"${text}"`, key: folded(text) }];
}

/** "follow-up" is two words to the index, each found by its stem. */
function wordClauses(word: string): SearchClause[] {
  const clauses: SearchClause[] = [];
  for (const [part] of word.matchAll(/[\p{L}\p{N}\p{M}']+/gu)) {
    const [key] = stemsOf(part);
    if (key !== undefined) clauses.push({ kind: 'word', text: part, search: part, key });
  }
  return clauses;
}

/** The clauses `text` contains, by the index's rules: a word by its stem, a phrase as written. */
export function clausesIn(text: string, clauses: readonly SearchClause[]): SearchClause[] {
  const plain = folded(text);
  const found = new Set(clauses.filter((c) => c.kind === 'phrase' && plain.includes(c.key)));
  const words = new Map(clauses.filter((c) => c.kind === 'word').map((c) => [c.key, c]));
  if (words.size > 0)
    for (const [word] of plain.matchAll(WORD)) {
      const clause = words.get(stemOf(word) ?? '');
      if (clause) found.add(clause);
    }
  return clauses.filter((c) => found.has(c));
}
