// The positions a text index keeps answer a phrase as mongod does, by substring: checked against
// the substring itself over texts and phrases made at random from a few words, spaces and marks.
import { describe, expect, it } from 'vitest';
import {
  decodePositions,
  type PositionSource,
  phraseRecords,
  recordWords,
  WordPositions,
} from '../../src/text-positions.js';

/** A small deterministic generator (Park and Miller's): the same texts every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

const PIECES = [
  'budget',
  'Roadmap',
  'road',
  'map',
  'get',
  'a',
  'the',
  ' ',
  ' ',
  ' ',
  '  ',
  ',',
  '.',
  '\n',
  '\t',
];

function text(next: () => number): string {
  const length = 1 + Math.floor(next() * 12);
  return Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
}

describe('WordPositions', () => {
  it('finds exactly the records whose strings hold a phrase, or a superset it says needs checking', () => {
    const next = random(33);
    const records = new Map<number, string[]>();
    const positions = new WordPositions();
    for (let seq = 1; seq <= 300; seq++) {
      const strings = Array.from({ length: 1 + Math.floor(next() * 3) }, () => text(next));
      records.set(seq, strings);
      positions.add(seq, recordWords((visit) => strings.forEach(visit))!);
    }
    // Some records change and some go, as updates and deletes do.
    for (let seq = 1; seq <= 300; seq += 7) {
      const before = records.get(seq)!;
      positions.remove(seq, recordWords((visit) => before.forEach(visit))!.keys());
      if (seq % 2 === 0) {
        records.delete(seq);
      } else {
        const after = [text(next)];
        records.set(seq, after);
        positions.add(seq, recordWords((visit) => after.forEach(visit))!);
      }
    }
    const decoded: PositionSource = {
      words: () => positions.words(),
      *positions(word) {
        for (const [seq, list] of positions.positions(word)) yield [seq, decodePositions(list)];
      },
    };
    let exact = 0;
    for (let k = 0; k < 400; k++) {
      // A phrase cut from some record's string, lower-cased as folding leaves it.
      const strings = [...records.values()][Math.floor(next() * records.size)]!;
      const source = strings[Math.floor(next() * strings.length)]!.toLowerCase();
      const from = Math.floor(next() * source.length);
      const phrase = source.slice(from, from + 1 + Math.floor(next() * 20));
      const holding = [...records]
        .filter(([, ss]) => ss.some((s) => s.toLowerCase().includes(phrase)))
        .map(([seq]) => seq);
      const found = phraseRecords(phrase, positions);
      // The same positions decoded, as a search keeps those it read from LMDB, answer alike.
      expect(phraseRecords(phrase, decoded), `"${phrase}" decoded`).toEqual(found);
      if (!found) {
        expect(phrase.trim(), `"${phrase}" has words`).toBe('');
        continue;
      }
      if (found.exact) {
        exact++;
        expect(
          [...found.seqs].sort((a, b) => a - b),
          `"${phrase}"`,
        ).toEqual(holding);
      } else {
        for (const seq of holding) expect(found.seqs.has(seq), `"${phrase}" in ${seq}`).toBe(true);
      }
    }
    // Most phrases are answered outright.
    expect(exact).toBeGreaterThan(150);
  });

  it('finds a phrase far into a long text, and not words that stand apart there', () => {
    // Positions past 2^14 and 2^21 take three and four bytes each.
    const positions = new WordPositions();
    const long = (filler: string, words: number, tail: string) => `${filler} `.repeat(words) + tail;
    const texts = new Map([
      [1, [long('a', 20_000, 'budget roadmap')]],
      [2, [long('budget', 20_000, 'x roadmap')]],
      [3, ['roadmap', long('the', 2_200_000, 'budget'), 'roadmap budget']],
      [4, [long('roadmap', 30_000, 'budget')]],
    ]);
    for (const [seq, strings] of texts) positions.add(seq, recordWords((visit) => strings.forEach(visit))!);
    expect(phraseRecords('budget roadmap', positions)).toEqual({ seqs: new Set([1]), exact: true });
    expect(phraseRecords('roadmap budget', positions)).toEqual({ seqs: new Set([3, 4]), exact: true });
    expect(phraseRecords('a budget', positions)).toEqual({ seqs: new Set([1]), exact: true });
  });

  it('keeps no word of a record once it is removed', () => {
    const positions = new WordPositions();
    positions.add(1, recordWords((visit) => visit('budget roadmap'))!);
    positions.add(2, recordWords((visit) => visit('budget roadmap'))!);
    positions.remove(1, ['budget', 'roadmap']);
    expect([...phraseRecords('budget roadmap', positions)!.seqs]).toEqual([2]);
    positions.remove(2, ['budget', 'roadmap']);
    expect(phraseRecords('budget roadmap', positions)!.seqs.size).toBe(0);
  });
});
