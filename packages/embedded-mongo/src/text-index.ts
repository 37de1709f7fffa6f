// A text index: an inverted index from each term to the records holding it, with the record's
// score for the term (mongod keeps the same, one (term, score) key per term of a document). A
// search reads the postings of its terms only, so it costs what it finds, not the collection.
// Phrases and case/diacritic-sensitive searches are checked on the documents, as mongod does.

import { stem } from 'porter2';
import { type Entry, Index, IndexKey, type IndexSpec, rootOf, type ScanStats } from './indexes.js';
import type { TextSearch } from './text-query.js';
import { type DocumentTerms, TextSpec } from './text-spec.js';
import { ENGLISH_STOP_WORDS } from './text-stop-words.js';
import { tokenize } from './text-tokenizer.js';
import { type Folding, foldString, phraseMatcher } from './text-unicode.js';
import type { Document } from './values.js';

/** Record ids (ascending) with their scores, in growable typed arrays: 12 bytes a posting. */
class Postings {
  seqs = new Uint32Array(4);
  scores = new Float64Array(4);
  size = 0;

  private find(seq: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seqs[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(seq: number): boolean {
    const at = this.find(seq);
    return at < this.size && this.seqs[at] === seq;
  }

  add(seq: number, score: number): void {
    if (this.size === this.seqs.length) {
      const capacity = Math.ceil(this.size * 1.5);
      const seqs = new Uint32Array(capacity);
      seqs.set(this.seqs);
      const scores = new Float64Array(capacity);
      scores.set(this.scores);
      this.seqs = seqs;
      this.scores = scores;
    }
    // Records are added in id order but for updates, which go back in their place.
    const at = this.size === 0 || this.seqs[this.size - 1]! < seq ? this.size : this.find(seq);
    if (at < this.size) {
      this.seqs.copyWithin(at + 1, at, this.size);
      this.scores.copyWithin(at + 1, at, this.size);
    }
    this.seqs[at] = seq;
    this.scores[at] = score;
    this.size++;
  }

  remove(seq: number): void {
    const at = this.find(seq);
    if (at >= this.size || this.seqs[at] !== seq) return;
    this.seqs.copyWithin(at, at + 1, this.size);
    this.scores.copyWithin(at, at + 1, this.size);
    this.size--;
  }
}

/** A document's one entry in a text index: its terms and their scores. */
class TextEntry extends IndexKey {
  constructor(readonly terms: DocumentTerms) {
    super([]);
  }

  override get key(): string {
    return JSON.stringify([...this.terms.scores].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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

export class TextIndex extends Index {
  readonly text: TextSpec;
  private readonly postings = new Map<string, Postings>();
  /** Records with text that is not plain ASCII: phrase matching must fold theirs. */
  private readonly folded = new Set<number>();

  constructor(spec: IndexSpec, partialMatcher?: (doc: Document) => boolean) {
    super(spec, partialMatcher);
    this.text = new TextSpec(spec);
  }

  override keysFor(doc: Document): IndexKey[] {
    if (this.partial && !this.partial(doc)) return [];
    const terms = this.text.scoreDocument(doc);
    return terms.scores.size === 0 ? [] : [new TextEntry(terms)];
  }

  override add(seq: number, keys: IndexKey[]): void {
    for (const key of keys) {
      const { scores, plain } = (key as TextEntry).terms;
      for (const [term, score] of scores) {
        let list = this.postings.get(term);
        if (!list) {
          list = new Postings();
          this.postings.set(term, list);
        }
        list.add(seq, score);
      }
      if (!plain) this.folded.add(seq);
    }
  }

  override remove(seq: number, keys: IndexKey[]): void {
    for (const key of keys) {
      for (const term of (key as TextEntry).terms.scores.keys()) {
        const list = this.postings.get(term);
        list?.remove(seq);
        if (list?.size === 0) this.postings.delete(term);
      }
    }
    this.folded.delete(seq);
  }

  override clear(): void {
    this.postings.clear();
    this.folded.clear();
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
      const list = this.postings.get(term);
      if (!list) continue;
      stats.keysExamined += list.size;
      const { seqs, scores: termScores, size } = list;
      for (let i = 0; i < size; i++) {
        const seq = seqs[i]!;
        scores.set(seq, (scores.get(seq) ?? 0) + termScores[i]!);
      }
    }
    return scores;
  }

  /**
   * The rest of a search (mongod's TEXT_MATCH) for a candidate: no negated term, every phrase,
   * no negated phrase; and, for a case- or diacritic-sensitive search, a term in that form.
   */
  matcher(search: TextSearch): (seq: number, doc: Document) => boolean {
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
    const negatedLists = [...search.negated].map((t) => this.postings.get(t));
    const holds = (doc: Document, test: (text: string) => boolean) => {
      let found = false;
      this.text.forEachText(doc, (text) => {
        found = test(text);
        return found;
      });
      return found;
    };
    return (seq, doc) => {
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
      } else if (negatedLists.some((list) => list?.has(seq))) return false;
      if (phrases.length === 0 && negatedPhrases.length === 0) return true;
      const plain = !this.folded.has(seq);
      if (!phrases.every((phrase) => holds(doc, (text) => phrase(text, plain)))) return false;
      return !negatedPhrases.some((phrase) => holds(doc, (text) => phrase(text, plain)));
    };
  }
}
