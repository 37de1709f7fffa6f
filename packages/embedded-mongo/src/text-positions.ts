// Where each word of a record's text stands, so that a `$text` phrase is answered from the index
// rather than from every candidate's text (a phrase of two common words over 5,000 transcripts read
// from disk took 35 s that way).
//
// mongod matches a phrase as a substring of one indexed string, after folding case and
// diacritics. On plain text (ASCII, which folds by lower-casing alone: text-unicode.ts) that is a
// question about words, taking a word to be a run of characters above the space: the phrase's
// inner words must be whole words of the string, its first word the end of one, its last the start
// of one, at consecutive positions, with the same characters between them. The index keeps, for each
// word of each plain record, its positions and whether exactly one space follows it (the common
// case); a phrase whose words are separated by anything else, or which starts or ends with
// whitespace, is narrowed down by the positions and then checked on the documents it leaves.
// Records with text that is not plain are not kept here: the text index checks theirs on the
// document, as before.

/** Positions of one word in one record: varints of (gap from the previous position << 1 | one space follows). */
export type EncodedPositions = Uint8Array;

/** The words of a record's plain strings, lower-cased, with their encoded positions. */
export type RecordWords = Map<string, EncodedPositions>;

/** One unused position between two strings: no phrase spans them. */
const STRING_GAP = 1;
const SPACE = 0x20;

/**
 * Longest word kept with positions, in characters (plain text: one byte each). A record with a
 * longer one (a blob with no space) has its phrases checked on its text instead: LMDB's keys are
 * short, and a word cut short could no longer tell where a phrase ends inside it.
 */
const LONGEST_WORD = 512;

/** Reads a record's strings (all plain) into its words and positions; undefined if one is too long to keep. */
export function recordWords(forEachText: (visit: (text: string) => void) => void): RecordWords | undefined {
  let tooLong = false;
  const found = new Map<string, number[]>();
  let position = 0;
  forEachText((text) => {
    const lower = text.toLowerCase();
    const n = lower.length;
    let i = 0;
    while (i < n) {
      while (i < n && lower.charCodeAt(i) <= SPACE) i++;
      if (i >= n) break;
      const start = i;
      while (i < n && lower.charCodeAt(i) > SPACE) i++;
      if (i - start > LONGEST_WORD) tooLong = true;
      const word = lower.slice(start, i);
      // One space, then a word of the same string.
      const spaced = i + 1 < n && lower.charCodeAt(i) === SPACE && lower.charCodeAt(i + 1) > SPACE;
      let positions = found.get(word);
      if (!positions) {
        positions = [];
        found.set(word, positions);
      }
      positions.push(position * 2 + (spaced ? 1 : 0));
      position++;
    }
    position += STRING_GAP;
  });
  if (tooLong) return undefined;
  const words: RecordWords = new Map();
  for (const [word, positions] of found) words.set(word, encode(positions));
  return words;
}

function encode(values: number[]): EncodedPositions {
  const bytes: number[] = [];
  let previous = 0;
  for (const value of values) {
    const position = value >>> 1;
    let v = (position - previous) * 2 + (value & 1);
    previous = position;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    bytes.push(v);
  }
  return Uint8Array.from(bytes);
}

/**
 * Positions of one word in one record, decoded: (position << 1 | one space follows), ascending.
 * What a search keeps of the positions it read (text-store.ts): four bytes a word, no decoding.
 */
export type DecodedPositions = Int32Array;

/** The positions of `bytes`, decoded. */
export function decodePositions(bytes: EncodedPositions): DecodedPositions {
  const out: number[] = [];
  for (let s = new PositionStream([bytes]), v = s.next(); v !== -1; v = s.next()) out.push(v);
  return Int32Array.from(out);
}

/**
 * One record's positions of one phrase word, ascending, decoded as they are read: a search stops at
 * the record's first occurrence of the phrase. A word that falls in several text words (a phrase's
 * cut ends) has their lists decoded and merged first.
 */
class PositionStream {
  private i = 0;
  private previous = 0;
  /** The positions when they need no decoding: decoded already, or merged from several lists. */
  private readonly decoded: ArrayLike<number> | undefined;

  constructor(private readonly lists: Array<EncodedPositions | DecodedPositions>) {
    const [only] = lists;
    if (lists.length === 1) {
      if (only instanceof Int32Array) this.decoded = only;
      return;
    }
    const all: number[] = [];
    for (const list of lists)
      for (const v of list instanceof Int32Array ? list : decodePositions(list)) all.push(v);
    this.decoded = all.sort((a, b) => a - b);
  }

  /** The next (position << 1 | one space follows), or -1 after the last. */
  next(): number {
    if (this.decoded) return this.i < this.decoded.length ? this.decoded[this.i++]! : -1;
    const bytes = this.lists[0]!;
    if (this.i >= bytes.length) return -1;
    // Varints of (gap << 1 | flag); positions stay far below 2^30, so 32-bit arithmetic holds.
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[this.i++]!;
      v |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    this.previous += v >>> 1;
    return (this.previous << 1) | (v & 1);
  }
}

/** Where a phrase's words are looked up: the index's words, and each one's records with positions. */
export interface PositionSource {
  /** The words the records may hold (more is harmless: a word no record holds finds nothing). */
  words(): Iterable<string>;
  /** The records holding `word`, each once, with its positions there. */
  positions(word: string): Iterable<readonly [seq: number, positions: EncodedPositions | DecodedPositions]>;
}

/** Plain records holding a phrase; `exact` unless each still needs checking on its document. */
export interface PhraseRecords {
  seqs: Set<number>;
  exact: boolean;
}

/** How a word of a phrase stands to the text's word it falls in: the ends of a phrase may cut words. */
type Fit = 'whole' | 'end' | 'start' | 'inside';

function fits(fit: Fit, word: string, part: string): boolean {
  switch (fit) {
    case 'whole':
      return word === part;
    case 'end':
      return word.endsWith(part);
    case 'start':
      return word.startsWith(part);
    case 'inside':
      return word.includes(part);
  }
}

/**
 * The plain records where `phrase` (folded, plain) is a substring of one string; undefined when it
 * has no word to look up (whitespace alone: every record must be checked).
 */
export function phraseRecords(phrase: string, source: PositionSource): PhraseRecords | undefined {
  // Words and the whitespace between them: [word, gap, word, ...].
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters separate words here.
  const parts = phrase.split(/([\x00-\x20]+)/);
  const words: string[] = [];
  const gaps: string[] = [];
  for (let k = 0; k < parts.length; k++) (k % 2 === 0 ? words : gaps).push(parts[k]!);
  // split leaves an empty first (last) word when the phrase starts (ends) with whitespace.
  const startsOpen = words[0] !== '';
  const endsOpen = words[words.length - 1] !== '';
  if (!startsOpen) {
    words.shift();
    gaps.shift();
  }
  if (!endsOpen) {
    words.pop();
    gaps.pop();
  }
  if (words.length === 0) return undefined;
  // Between words, one space is answered here; other whitespace only narrows the candidates.
  const exact = startsOpen && endsOpen && gaps.every((g) => g === ' ');
  const last = words.length - 1;
  let known: string[] | undefined;
  const vocabulary = () => {
    known ??= [...source.words()];
    return known;
  };
  // Each word's records, with the positions of every text word it may fall in.
  const byRecord = words.map((part, k) => {
    const cutBefore = k === 0 && startsOpen; // the text word may go on before the phrase's
    const cutAfter = k === last && endsOpen;
    const fit: Fit = cutBefore ? (cutAfter ? 'inside' : 'end') : cutAfter ? 'start' : 'whole';
    const matching = fit === 'whole' ? [part] : vocabulary().filter((word) => fits(fit, word, part));
    const at = new Map<number, Array<EncodedPositions | DecodedPositions>>();
    for (const word of matching) {
      for (const [seq, positions] of source.positions(word)) {
        const found = at.get(seq);
        if (found) found.push(positions);
        else at.set(seq, [positions]);
      }
    }
    return at;
  });
  const seqs = new Set<number>();
  // Where the phrase puts one space, the text must have one (flag 1); elsewhere, something else.
  const spaced = gaps.map((gap) => (gap === ' ' ? 1 : 0));
  // The records holding every word, from the word held by the fewest.
  const rarest = byRecord.reduce((a, b) => (b.size < a.size ? b : a));
  for (const seq of rarest.keys()) {
    if (!byRecord.every((at) => at.has(seq))) continue;
    if (
      follows(
        byRecord.map((at) => new PositionStream(at.get(seq)!)),
        spaced,
      )
    )
      seqs.add(seq);
  }
  return { seqs, exact };
}

/** Positions of records held in memory, by word. */
export class WordPositions implements PositionSource {
  private readonly lists = new Map<string, Map<number, EncodedPositions>>();

  add(seq: number, words: RecordWords): void {
    for (const [word, positions] of words) {
      let list = this.lists.get(word);
      if (!list) {
        list = new Map();
        this.lists.set(word, list);
      }
      list.set(seq, positions);
    }
  }

  remove(seq: number, words: Iterable<string>): void {
    for (const word of words) {
      const list = this.lists.get(word);
      list?.delete(seq);
      if (list?.size === 0) this.lists.delete(word);
    }
  }

  clear(): void {
    this.lists.clear();
  }

  words(): Iterable<string> {
    return this.lists.keys();
  }

  positions(word: string): Iterable<readonly [number, EncodedPositions]> {
    return this.lists.get(word) ?? [];
  }
}

/**
 * Whether the words stand at consecutive positions somewhere: `streams[k]` gives word k's
 * (position << 1 | one space follows), ascending; between words k and k + 1 the text must have
 * exactly one space where `spaced[k]` is 1, and other whitespace where it is 0.
 */
function follows(streams: PositionStream[], spaced: number[]): boolean {
  const heads = streams.map((stream, k) => (k === 0 ? 0 : stream.next()));
  for (let first = streams[0]!.next(); first !== -1; first = streams[0]!.next()) {
    const start = first >>> 1;
    let previous = first;
    let ok = true;
    for (let k = 1; k < streams.length && ok; k++) {
      const wanted = start + k;
      let value = heads[k]!;
      while (value !== -1 && value >>> 1 < wanted) value = streams[k]!.next();
      // Word k stands nowhere after: no later start can hold the phrase either.
      if (value === -1) return false;
      heads[k] = value;
      ok = value >>> 1 === wanted && (previous & 1) === spaced[k - 1];
      previous = value;
    }
    if (ok) return true;
  }
  return false;
}
