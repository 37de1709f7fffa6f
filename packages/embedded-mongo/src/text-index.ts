// A text index: an inverted index from each term to the records holding it, with the record's
// score for the term (mongod keeps the same, one (term, score) key per term of a document), kept
// in LMDB (text-store.ts). A search reads the postings of its terms only, so it costs what it
// finds, not the collection.
// Phrases are answered from where each word stands (text-positions.ts) for records with plain text;
// mongod checks them on the documents, which costs a read of every candidate's text. Other records,
// and case/diacritic-sensitive searches, are checked on the documents.

import { stem } from 'porter2';
import type { DocumentCache } from './document-cache.js';
import type { Entry } from './index-store.js';
import { Index, IndexKey, type IndexSpec, rootOf, type ScanStats } from './indexes.js';
import { phraseRecords, type RecordWords, recordWords } from './text-positions.js';
import type { TextSearch } from './text-query.js';
import { type DocumentTerms, TextSpec } from './text-spec.js';
import { ENGLISH_STOP_WORDS } from './text-stop-words.js';
import { type TextDatabase, type TextRecord, TextStore } from './text-store.js';
import { tokenize } from './text-tokenizer.js';
import { type Folding, foldString, isPlain, phraseMatcher } from './text-unicode.js';
import type { Document } from './values.js';

/** A document's one entry in a text index: its terms and their scores, and its words' positions if plain. */
class TextEntry extends IndexKey {
  constructor(
    readonly terms: DocumentTerms,
    readonly words: RecordWords | undefined,
  ) {
    super([]);
  }

  /** Equal for entries of the same terms, scores and word positions (an update that moves words changes it). */
  override get key(): string {
    const byName = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
    const words =
      this.words && [...this.words].map(([w, p]): [string, string] => [w, Buffer.from(p).toString('base64')]);
    return JSON.stringify([[...this.terms.scores].sort(byName), words?.sort(byName) ?? null]);
  }
}

/**
 * Terms an English stop word stems to that are no stop word themselves (`does` → `doe`): the index
 * leaves such words out, but mongod's matcher reads them when it checks a negated term.
 */
let stopWordTerms: Set<string> | undefined;
function stopWordStems(): Set<string> {
  stopWordTerms ??= new Set(
    [...ENGLISH_STOP_WORDS].map((w) => foldString(stem(w), { caseFold: false, stripDiacritics: true })),
  );
  return stopWordTerms;
}

const FULL_FOLDING: Folding = { caseFold: true, stripDiacritics: true };

function recordOf(keys: IndexKey[]): TextRecord | null {
  const entry = keys[0] as TextEntry | undefined;
  return entry ? { scores: entry.terms.scores, words: entry.words } : null;
}

export class TextIndex extends Index {
  readonly text: TextSpec;
  readonly store: TextStore;

  /** `storageId`: where its entries are in `db` (new for a new index: text-store.ts); `cache`: the engine's. */
  constructor(
    spec: IndexSpec,
    partialMatcher: ((doc: Document) => boolean) | undefined,
    db: TextDatabase,
    storageId: string,
    cache: DocumentCache,
  ) {
    super(spec, partialMatcher);
    this.text = new TextSpec(spec);
    this.store = new TextStore(db, storageId, cache);
  }

  override keysFor(doc: Document): IndexKey[] {
    if (this.partial && !this.partial(doc)) return [];
    const terms = this.text.scoreDocument(doc);
    if (terms.scores.size === 0) return [];
    const words = terms.plain
      ? recordWords((visit) => this.text.forEachText(doc, (text) => visit(text)))
      : undefined;
    return [new TextEntry(terms, words)];
  }

  override add(seq: number, keys: IndexKey[]): void {
    const record = recordOf(keys);
    if (record) this.store.add(seq, record);
  }

  override remove(seq: number, keys: IndexKey[]): void {
    this.store.remove(seq, recordOf(keys));
  }

  override clear(): void {
    this.store.clear();
  }

  override get storageId(): string {
    return this.store.storageId;
  }

  /** Its weighted fields and the language override: null (any field) for the wildcard. */
  protected override readRoots(): string[] | null {
    const fields = Object.keys(this.spec.weights as Document);
    const own = super.readRoots();
    if (own === null || fields.includes('$**')) return null;
    const language = String(this.spec.language_override ?? 'language');
    return [...new Set([...own, ...fields.map(rootOf), language])];
  }

  /** An update that leaves every indexed string (and its weight and language) as it was. */
  override keysUnchanged(before: Document, after: Document): boolean {
    if (super.keysUnchanged(before, after)) return true;
    if (this.partial && this.partial(before) !== this.partial(after)) return false;
    const texts: unknown[] = [];
    const visit = (text: string, weight: number, language: string) => {
      texts.push(text, weight, language);
    };
    this.text.forEachText(before, visit);
    const count = texts.length;
    let i = 0;
    let same = true;
    this.text.forEachText(after, (text, weight, language) => {
      same &&= texts[i] === text && texts[i + 1] === weight && texts[i + 2] === language;
      i += 3;
      return !same;
    });
    return same && i === count;
  }

  /** The index holds no ordered keys to scan. */
  override *scan(): Generator<Entry | undefined> {}

  /** Records holding at least one of `terms`, with the sum of their scores (mongod's TEXT_OR). */
  candidates(terms: string[], stats: ScanStats): Map<number, number> {
    const scores = new Map<number, number>();
    for (const term of terms) {
      for (const [seq, score] of this.store.scores(term)) {
        stats.keysExamined++;
        scores.set(seq, (scores.get(seq) ?? 0) + score);
      }
    }
    return scores;
  }

  /**
   * The rest of a search (mongod's TEXT_MATCH) for a candidate: no negated term, every phrase,
   * no negated phrase; and, for a case- or diacritic-sensitive search, a term in that form.
   */
  matcher(search: TextSearch): TextMatch {
    const folding: Folding = { caseFold: !search.caseSensitive, stripDiacritics: !search.diacriticSensitive };
    const phrases = search.phrases.map((p) => phraseMatcher(p, folding));
    const negatedPhrases = search.negatedPhrases.map((p) => phraseMatcher(p, folding));
    const sensitive = search.caseSensitive || search.diacriticSensitive;
    const readDocument = sensitive || [...search.negated].some((t) => stopWordStems().has(t));
    const options = {
      stopWords: false,
      caseSensitive: search.caseSensitive,
      diacriticSensitive: search.diacriticSensitive,
    };
    const negated = [...search.negated];
    const holdsNegated = (seq: number) => negated.some((term) => this.store.holdsTerm(term, seq));
    // The plain records holding each phrase, read from the positions. A sensitive search's phrase
    // holds only where its case-insensitive form does, which is all the positions can tell.
    const recordsHolding = (phrase: string) => {
      const folded = foldString(phrase, FULL_FOLDING);
      const records = isPlain(folded)
        ? phraseRecords(folded, this.store)
        : { seqs: new Set<number>(), exact: true }; // plain text cannot hold it
      return records && sensitive ? { ...records, exact: false } : records;
    };
    const found = search.phrases.map(recordsHolding);
    const excluded = search.negatedPhrases.map(recordsHolding);
    // Only phrases tell plain records from others: without one, a record's text is not read for it.
    const notPlain = phrases.length + negatedPhrases.length > 0 ? this.store.notPlain() : new Set<number>();
    const holds = (doc: Document, test: (text: string) => boolean) => {
      let found = false;
      this.text.forEachText(doc, (text) => {
        found = test(text);
        return found;
      });
      return found;
    };
    return {
      decide: (seq) => {
        if (!readDocument && holdsNegated(seq)) return false;
        if (notPlain.has(seq)) return undefined;
        let sure = !readDocument;
        for (const records of found) {
          if (!records) sure = false;
          else if (!records.seqs.has(seq)) return false;
          else sure &&= records.exact;
        }
        for (const records of excluded) {
          if (!records) sure = false;
          else if (records.seqs.has(seq)) {
            if (records.exact) return false;
            sure = false;
          }
        }
        return sure || undefined;
      },
      test: (seq, doc) => {
        if (readDocument) {
          let positive = !sensitive;
          let negative = false;
          this.text.forEachText(doc, (text, _weight, language) => {
            tokenize(text, language, options, (term) => {
              if (search.positive.has(term)) positive = true;
              if (search.negated.has(term)) negative = true;
            });
            return negative;
          });
          if (!positive || negative) return false;
        }
        if (phrases.length === 0 && negatedPhrases.length === 0) return true;
        const plain = !notPlain.has(seq);
        if (!phrases.every((phrase) => holds(doc, (text) => phrase(text, plain)))) return false;
        return !negatedPhrases.some((phrase) => holds(doc, (text) => phrase(text, plain)));
      },
    };
  }
}

/** A search's TEXT_MATCH, from the index where it can tell and else from the document. */
export interface TextMatch {
  /** Whether the record matches, or undefined when only its document can tell. */
  decide(seq: number): boolean | undefined;
  /** Whether a record `decide` left undecided matches, read from its document. */
  test(seq: number, doc: Document): boolean;
}
