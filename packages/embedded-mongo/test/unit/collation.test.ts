// Collation (collation.ts): the engine's sorts, filters and groupings under a collation agree with
// ICU's own comparison, an Intl.Collator built here from the collation's documented meaning; and
// the collation documents mongod takes are read as it reads them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Collation, collationKeyer, parseCollation } from '../../src/collation.js';
import { CommandError } from '../../src/errors.js';
import { compileFilter } from '../../src/filter.js';
import { sortDocuments } from '../../src/sort.js';
import type { Document } from '../../src/values.js';

/** Short strings of letters that differ by case, accent, digits and punctuation only. */
const text = fc
  .array(fc.constantFrom('a', 'A', 'á', 'b', 'B', 'e', 'é', 'É', 'ß', 's', '1', '2', '10', '-', ' '), {
    maxLength: 4,
  })
  .map((parts) => parts.join(''));

interface Spec {
  locale: string;
  strength: 1 | 2 | 3;
  caseLevel: boolean;
  caseFirst: 'off' | 'upper' | 'lower';
  numericOrdering: boolean;
  alternate: 'non-ignorable' | 'shifted';
}

/** Collations mongod accepts: caseFirst only where a case level or tertiary strength reads it. */
const spec: fc.Arbitrary<Spec> = fc
  .record({
    locale: fc.constantFrom('en', 'de', 'fr', 'sv', 'es'),
    strength: fc.constantFrom(1, 2, 3) as fc.Arbitrary<1 | 2 | 3>,
    caseLevel: fc.boolean(),
    caseFirst: fc.constantFrom('off', 'upper', 'lower') as fc.Arbitrary<Spec['caseFirst']>,
    numericOrdering: fc.boolean(),
    alternate: fc.constantFrom('non-ignorable', 'shifted') as fc.Arbitrary<Spec['alternate']>,
  })
  .map((s) => ({
    ...s,
    caseLevel: s.strength === 1 && s.caseLevel,
    caseFirst: s.strength === 3 || (s.strength === 1 && s.caseLevel) ? s.caseFirst : 'off',
  }));

/** ICU's comparison for a spec, from the collation documentation's strengths. */
function oracle(s: Spec): Intl.Collator {
  const sensitivity =
    s.strength === 1 ? (s.caseLevel ? 'case' : 'base') : s.strength === 2 ? 'accent' : 'variant';
  return new Intl.Collator(s.locale, {
    sensitivity,
    caseFirst: s.caseFirst === 'off' ? 'false' : s.caseFirst,
    numeric: s.numericOrdering,
    ignorePunctuation: s.alternate === 'shifted',
  });
}

const collationOf = (s: Spec): Collation => parseCollation({ ...s })!;

describe('the engine under a collation compares as ICU does', () => {
  it('sorts in the collator order, equal strings keeping their order', () => {
    fc.assert(
      fc.property(spec, fc.array(text, { maxLength: 30 }), (s, strings) => {
        const collator = oracle(s);
        const docs = strings.map((v, i) => ({ i, v }));
        const sorted = sortDocuments(docs, { v: 1 }, collationOf(s));
        expect(sorted.map((d) => d.i).sort((a, b) => (a as number) - (b as number))).toEqual(
          docs.map((d) => d.i),
        );
        for (let k = 1; k < sorted.length; k++) {
          const c = collator.compare(sorted[k - 1]!.v as string, sorted[k]!.v as string);
          expect(c).toBeLessThanOrEqual(0);
          if (c === 0) expect(sorted[k - 1]!.i as number).toBeLessThan(sorted[k]!.i as number);
        }
      }),
    );
  });

  it('$eq, $in, $gt and $ne match exactly what the collator finds equal or greater', () => {
    fc.assert(
      fc.property(
        spec,
        fc.array(text, { maxLength: 12 }),
        text,
        fc.array(text, { maxLength: 4 }),
        (s, strings, x, xs) => {
          const collator = oracle(s);
          const extras = { collation: collationOf(s) };
          const eq = compileFilter({ v: x }, extras);
          const inList = compileFilter({ v: { $in: xs } }, extras);
          const gt = compileFilter({ v: { $gt: x } }, extras);
          const ne = compileFilter({ v: { $ne: x } }, extras);
          const inArray = compileFilter({ list: x }, extras);
          for (const v of strings) {
            const c = collator.compare(v, x);
            expect(eq.test({ v })).toBe(c === 0);
            expect(ne.test({ v })).toBe(c !== 0);
            expect(gt.test({ v })).toBe(c > 0);
            expect(inList.test({ v })).toBe(xs.some((y) => collator.compare(v, y) === 0));
            expect(inArray.test({ list: [1, v] })).toBe(c === 0);
          }
        },
      ),
    );
  });

  it('gives strings one hash key exactly when the collator finds them equal (distinct, $group)', () => {
    fc.assert(
      fc.property(spec, fc.array(text, { maxLength: 20 }), (s, strings) => {
        const collator = oracle(s);
        const keyOf = collationKeyer(collationOf(s));
        const keys = strings.map((v) => keyOf({ nested: [v] }));
        strings.forEach((a, i) => {
          strings.forEach((b, j) => {
            expect(keys[i] === keys[j]).toBe(collator.compare(a, b) === 0);
          });
        });
      }),
    );
  });
});

describe('collation documents', () => {
  const refusal = (doc: Document): CommandError => {
    try {
      parseCollation(doc);
    } catch (err) {
      if (err instanceof CommandError) return err;
      throw err;
    }
    throw new Error(`${JSON.stringify(doc)} was accepted`);
  };

  it('are listed with the locale’s own defaults filled in, and { locale: "simple" } is none', () => {
    expect(parseCollation({ locale: 'simple' })).toBeUndefined();
    expect(parseCollation({ locale: 'fr_CA' })?.spec.backwards).toBe(true);
    expect(parseCollation({ locale: 'da' })?.spec.caseFirst).toBe('upper');
    expect(parseCollation({ locale: 'th' })?.spec.alternate).toBe('shifted');
    expect(parseCollation({ locale: 'en', strength: 2 })?.key).toBe(
      parseCollation({ strength: 2, locale: 'en' })?.key,
    );
  });

  it('take ICU locale IDs with their collation variants', () => {
    // German phonebook order reads "ä" as "ae"; the dictionary order as "a".
    expect(parseCollation({ locale: 'de@collation=phonebook' })!.compare('ä', 'ad')).toBeGreaterThan(0);
    expect(parseCollation({ locale: 'de' })!.compare('ä', 'ad')).toBeLessThan(0);
    for (const locale of [
      'en_US',
      'en_US_POSIX',
      'zh_Hant',
      'zh@collation=pinyin',
      'es@collation=traditional',
    ])
      expect(parseCollation({ locale })?.spec.locale).toBe(locale);
    expect(refusal({ locale: 'zh@collation=nope' }).code).toBe(2);
    expect(refusal({ locale: 'en-US' }).message).toContain("Did you mean 'en_US'?");
  });

  it('strength 5 tells apart what every other level finds equal', () => {
    const zeroWidthSpace = 'a\u200Bb';
    expect(parseCollation({ locale: 'en' })!.compare(zeroWidthSpace, 'ab')).toBe(0);
    expect(parseCollation({ locale: 'en', strength: 5 })!.compare(zeroWidthSpace, 'ab')).not.toBe(0);
    expect(parseCollation({ locale: 'en', strength: 5 })!.compare('e\u0301', 'é')).toBe(0);
  });

  it('refuse, as NotImplemented, what Intl.Collator cannot set', () => {
    expect(refusal({ locale: 'fr', backwards: true }).code).toBe(238);
    expect(refusal({ locale: 'en', alternate: 'shifted', strength: 4 }).code).toBe(238);
    expect(refusal({ locale: 'en', alternate: 'shifted', maxVariable: 'space' }).code).toBe(238);
    expect(refusal({ locale: 'zh@collation=big5han' }).code).toBe(238);
    expect(parseCollation({ locale: 'fr_CA', backwards: true })?.spec.backwards).toBe(true);
  });

  it('are checked as mongod checks them', () => {
    expect(refusal({ locale: 'en', version: '1.0' }).code).toBe(161);
    expect(refusal({ locale: 'en', strength: -1 }).code).toBe(51024);
    expect(refusal({ locale: 'en', strength: 'x' }).code).toBe(14);
    expect(refusal({ locale: 'fr_CA', strength: 1 }).message).toContain(
      "'backwards' is invalid with 'strength' of 1",
    );
    expect(refusal({ locale: 'a\0b' }).code).toBe(2);
  });
});
