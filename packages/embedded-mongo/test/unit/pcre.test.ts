// pcre.ts: PCRE patterns translated to JavaScript match what PCRE2's documentation says they match;
// what cannot be translated is refused with mongod's 51091; no pattern string, however broken, gets
// anything but a result or one of mongod's regex errors, through the driver too.
import fc from 'fast-check';
import { MongoClient, MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../src/errors.js';
import { type EmbeddedMongo, startEmbeddedMongo } from '../../src/index.js';
import { compileQueryRegex } from '../../src/pcre.js';

/** The strings of `candidates` the pattern matches. */
function matched(pattern: string, options: string, candidates: string[]): string[] {
  const re = compileQueryRegex(pattern, options);
  return candidates.filter((s) => re.test(s));
}

function refusal(pattern: string, options = ''): CommandError {
  try {
    compileQueryRegex(pattern, options);
  } catch (err) {
    expect(err).toBeInstanceOf(CommandError);
    return err as CommandError;
  }
  throw new Error(`expected ${pattern} to be refused`);
}

describe('translated PCRE constructs (pcre2pattern semantics)', () => {
  it.each([
    // [pattern, options, candidates, matched]
    ['(?i)abc', '', ['ABC', 'abc', 'ab'], ['ABC', 'abc']],
    ['(?im)^b', '', ['a\nB', 'ab'], ['a\nB']],
    ['(?s)a.b', '', ['a\nb', 'ab'], ['a\nb']],
    ['(?-i)abc', 'i', ['ABC', 'abc'], ['abc']],
    ['a b # comment', 'x', ['ab', 'a b'], ['ab']],
    ['a[ ]b', 'x', ['a b', 'ab'], ['a b']],
    ['a\\ b', 'x', ['a b', 'ab'], ['a b']],
    ['^abc$', '', ['abc', 'abc\n', 'abc\n\n'], ['abc', 'abc\n']],
    ['^$', 'm', ['a\n\nb', 'ab'], ['a\n\nb']],
    ['a.c', '', ['a\nc', 'a\rc', 'a\u2028c'], ['a\rc', 'a\u2028c']],
    ['\\Aab', 'm', ['ab', 'x\nab'], ['ab']],
    ['ab\\z', '', ['ab', 'ab\n'], ['ab']],
    ['ab\\Z', '', ['ab', 'ab\n', 'ab\nc'], ['ab', 'ab\n']],
    ['\\Q(a+)\\E$', '', ['(a+)', 'aa'], ['(a+)']],
    ['[\\Q]\\E]', '', [']', 'a'], [']']],
    ['^a++b', '', ['aab', 'aa'], ['aab']],
    ['^a*+a', '', ['aaa'], []],
    ['^(?:ab|a)++b', '', ['abb', 'ab'], ['abb']],
    ['^(?>ab|a)b', '', ['abb', 'ab'], ['abb']],
    ['^(a)(?>(b))\\2', '', ['abb', 'ab'], ['abb']],
    ['(?P<x>a)(?P=x)', '', ['aa', 'ab'], ['aa']],
    ['(?<x>a)\\k<x>\\g{x}\\g1\\g{-1}', '', ['aaaaa', 'aaaa'], ['aaaaa']],
    ['^\\h\\v$', '', ['\t\n', ' \u2029', 'a\n'], ['\t\n', ' \u2029']],
    ['^\\s$', '', [' ', '\u000b', '\u00a0'], [' ', '\u000b']],
    ['^[\\S]$', '', ['a', '\u00a0', ' '], ['a', '\u00a0']],
    ['^\\p{Greek}+$', '', ['αβ', 'ab'], ['αβ']],
    ['^\\pL\\p{^L}$', '', ['a1', 'ab'], ['a1']],
    ['^[[:digit:][:upper:]]+$', '', ['A1', 'a1'], ['A1']],
    ['^.$', '', ['😀', 'ab'], ['😀']],
    ['^\\x{1F600}\\x41\\101\\o{102}\\cA$', '', ['😀AAB\u0001'], ['😀AAB\u0001']],
    ['a{,2}', '', ['a{,2}', 'aa'], ['a{,2}']],
    ['a(?#comment)b', '', ['ab'], ['ab']],
    ['a(?i)b', 'i', ['AB'], ['AB']],
    ['a@b\\@c', '', ['a@b@c'], ['a@b@c']],
  ])('%j with %j', (pattern, options, candidates, expected) => {
    expect(matched(pattern, options, candidates)).toEqual(expected);
  });
});

describe('refused, with 51091, never matched otherwise', () => {
  it.each([
    'a(?i)b', // an option change for part of the pattern
    'a(?i:b)c',
    '(?s:a.)b',
    '\\G',
    '\\R',
    '\\X',
    'a\\Kb',
    '(a)(?1)',
    '(?R)',
    '(?(1)a|b)',
    '(?|(a)|(b))',
    '(*UTF)a',
    '(?<=a++)b',
    '[\\H]',
  ])('%j', (pattern) => {
    const err = refusal(pattern);
    expect(err.code).toBe(51091);
    expect(err.message).toMatch(/^Regular expression is invalid: /);
  });

  it('invalid patterns are 51091, unknown option letters 51108', () => {
    for (const pattern of ['(', '[a', 'a{2,1}', '*a', '\\', '\\i', '(?P<1a>x)', '\\2(a)(?P=zz)']) {
      expect(refusal(pattern).code).toBe(51091);
    }
    expect(refusal('a', 'g').code).toBe(51108);
    expect(refusal('a\0b').code).toBe(2);
  });
});

describe('any pattern string', () => {
  const MEANINGFUL = [...'()[]{}^$.*+?|\\-:=!<>#PQEAZzhHvVsSdwbBkgpx0123aAbi \n'];
  const pattern = fc.array(fc.constantFrom(...MEANINGFUL), { maxLength: 14 }).map((cs) => cs.join(''));
  const options = fc.subarray(['i', 'm', 's', 'x', 'u']).map((letters) => letters.join(''));

  it('compiles or is refused with a regex error', () => {
    fc.assert(
      fc.property(fc.oneof(pattern, fc.string({ maxLength: 12 })), options, (p, o) => {
        try {
          compileQueryRegex(p, o).test('ab\nAB 1');
        } catch (err) {
          expect(err).toBeInstanceOf(CommandError);
          expect([2, 51091]).toContain((err as CommandError).code);
        }
      }),
      { numRuns: 3000 },
    );
  });

  describe('through the driver', () => {
    let engine: EmbeddedMongo;
    let client: MongoClient;

    beforeAll(async () => {
      engine = await startEmbeddedMongo();
      client = new MongoClient(engine.uri);
      await client
        .db('fuzz')
        .collection('c')
        .insertMany([{ s: 'ab\nAB 1' }, { s: ['x', 'a+'] }]);
    });

    afterAll(async () => {
      await client?.close();
      await engine?.close();
    });

    it('answers a result or a mongod error code, and keeps the connection', async () => {
      const c = client.db('fuzz').collection('c');
      await fc.assert(
        fc.asyncProperty(pattern, options, async (p, o) => {
          const answers = [
            c.find({ s: { $regex: p, $options: o } }).toArray(),
            c
              .aggregate([
                { $project: { m: { $regexMatch: { input: 'ab', regex: { $literal: p }, options: o } } } },
              ])
              .toArray(),
          ];
          for (const answer of answers) {
            const outcome = await answer.catch((e: unknown) => e);
            if (outcome instanceof Error) {
              expect(outcome).toBeInstanceOf(MongoServerError);
              expect([2, 51091, 51111]).toContain((outcome as MongoServerError).code);
            }
          }
        }),
        { numRuns: 300 },
      );
      expect(await client.db('fuzz').command({ ping: 1 })).toMatchObject({ ok: 1 });
    });
  });
});
