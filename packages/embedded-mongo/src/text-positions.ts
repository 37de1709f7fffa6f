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

/** Appends the positions of `bytes` to `out` (position << 1 | one space follows), ascending. */
function decodeInto(bytes: EncodedPositions, out: number[]): void {
  let previous = 0;
  let i = 0;
  while (i < bytes.length) {
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    const position = previous + Math.floor(v / 2);
    previous = position;
    out.push(position * 2 + (v & 1));
  }
}

/** Where a phrase's words are looked up: the index's words, and each one's records with positions. */
export interface PositionSource {
  /** The words the records may hold (more is harmless: a word no record holds finds nothing). */
  words(): Iterable<string>;
  /** The records holding `word`, each once, with its encoded positions there. */
  positions(word: string): Iterable<readonly [seq: number, positions: EncodedPositions]>;
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
    const at = new Map<number, EncodedPositions[]>();
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
  // The records holding every word, from the word held by the fewest.
  const rarest = byRecord.reduce((a, b) => (b.size < a.size ? b : a));
  const positions: number[][] = words.map(() => []);
  for (const seq of rarest.keys()) {
    if (!byRecord.every((at) => at.has(seq))) continue;
    byRecord.forEach((at, k) => {
      const out = positions[k]!;
      out.length = 0;
      const lists = at.get(seq)!;
      for (const list of lists) decodeInto(list, out);
      if (lists.length > 1) out.sort((a, b) => a - b);
    });
    if (follows(positions, gaps)) seqs.add(seq);
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
 * Whether the words stand at consecutive positions somewhere: `positions[k]` are word k's
 * (position << 1 | one space follows), ascending; where the phrase puts one space between two words,
 * the text must have exactly that, and where it puts other whitespace, something other than it.
 */
function follows(positions: number[][], gaps: string[]): boolean {
  const cursors = positions.map(() => 0);
  for (const first of positions[0]!) {
    const start = first >>> 1;
    let previous = first;
    let ok = true;
    for (let k = 1; k < positions.length && ok; k++) {
      const wanted = start + k;
      const list = positions[k]!;
      let c = cursors[k]!;
      while (c < list.length && list[c]! >>> 1 < wanted) c++;
      cursors[k] = c;
      ok = c < list.length && list[c]! >>> 1 === wanted && (previous & 1) === (gaps[k - 1] === ' ' ? 1 : 0);
      previous = list[c] ?? 0;
    }
    if (ok) return true;
  }
  return false;
}
