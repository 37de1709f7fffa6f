// mongod's regular expressions are PCRE2: syntax and semantics JavaScript lacks or reads otherwise
// (https://www.mongodb.com/docs/manual/reference/operator/query/regex/, https://pcre.org/current/doc/html/pcre2pattern.html),
// in filters, in $regexFind, and as stored values, which come back exactly as they were written.
import { BSONRegExp, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

const STRINGS = [
  'Hello world',
  'abc',
  'abc\n',
  'abc\nd',
  'a\nb',
  'a\rb',
  'a.*b',
  'axyb',
  'aaa',
  'foo',
  'tab\there',
  'hellow',
  'x{2}',
];

beforeAll(async () => {
  target = await connectTarget('regex');
  await target.db.collection('s').insertMany(STRINGS.map((s, i) => ({ _id: i as never, s })));
});

afterAll(async () => {
  await target?.close();
});

/** The strings a filter on `s` matches, in insertion order. */
async function matching(condition: unknown): Promise<string[]> {
  const docs = await target.db
    .collection('s')
    .find({ s: condition } as Document)
    .sort({ _id: 1 })
    .toArray();
  return docs.map((d) => d.s as string);
}

describe('PCRE options and inline options', () => {
  it('(?i) at the start is the i option', async () => {
    expect(await matching({ $regex: '(?i)^hello ' })).toEqual(['Hello world']);
    expect(await matching(new BSONRegExp('(?i)^HELLO '))).toEqual(['Hello world']);
    expect(await matching({ $regex: '^hello ' })).toEqual([]);
  });

  it('x ignores white space and # comments outside classes', async () => {
    expect(await matching({ $regex: '^hel lo # a comment\n w$', $options: 'x' })).toEqual(['hellow']);
    expect(await matching({ $regex: '(?x) ^ a [ ] b' })).toEqual([]);
  });

  it('s lets . match a newline; without it . still matches \\r', async () => {
    expect(await matching({ $regex: '^a.b$' })).toEqual(['a\rb']);
    expect(await matching({ $regex: '^a.b$', $options: 's' })).toEqual(['a\nb', 'a\rb']);
  });

  it('m makes ^ and $ match at newlines', async () => {
    expect(await matching({ $regex: '^b', $options: 'm' })).toEqual(['a\nb']);
    expect(await matching({ $regex: '^d$', $options: 'm' })).toEqual(['abc\nd']);
  });
});

describe('PCRE anchors', () => {
  it('$ also matches before a final newline', async () => {
    expect(await matching({ $regex: '^abc$' })).toEqual(['abc', 'abc\n']);
  });

  it('\\A, \\z and \\Z', async () => {
    expect(await matching({ $regex: '\\Aabc\\z' })).toEqual(['abc']);
    expect(await matching({ $regex: '\\Aabc\\Z' })).toEqual(['abc', 'abc\n']);
    expect(await matching({ $regex: '\\Ab', $options: 'm' })).toEqual([]);
  });
});

describe('PCRE syntax JavaScript lacks', () => {
  it('\\Q...\\E quotes', async () => {
    expect(await matching({ $regex: '^a\\Q.*\\Eb$' })).toEqual(['a.*b']);
  });

  it('possessive quantifiers and atomic groups do not give back', async () => {
    expect(await matching({ $regex: '^a+a$' })).toEqual(['aaa']);
    expect(await matching({ $regex: '^a++a$' })).toEqual([]);
    expect(await matching({ $regex: '^(?>a+)a$' })).toEqual([]);
    expect(await matching({ $regex: '^(?>a|aa)a$' })).toEqual([]);
    expect(await matching(new BSONRegExp('^a*+$'))).toEqual(['aaa']);
  });

  it('named groups in the Python spelling, and their references', async () => {
    expect(await matching({ $regex: '(?P<o>o)(?P=o)' })).toEqual(['foo']);
    expect(await matching({ $regex: "f(?'o'o)\\k{o}" })).toEqual(['foo']);
  });

  it('\\h is horizontal white space; a brace that is no quantifier is literal', async () => {
    expect(await matching({ $regex: 'tab\\hhere' })).toEqual(['tab\there']);
    expect(await matching({ $regex: '^x\\{2}$' })).toEqual(['x{2}']);
    expect(await matching({ $regex: '^x{2}$' })).toEqual([]);
  });

  it('POSIX classes', async () => {
    expect(await matching({ $regex: '^[[:alpha:]]+$' })).toEqual([
      'abc',
      'abc\n',
      'axyb',
      'aaa',
      'foo',
      'hellow',
    ]);
    expect(await matching({ $regex: '^a[[:punct:]]+b$' })).toEqual(['a.*b']);
  });
});

describe('$regexFind', () => {
  it('reports idx in code points and unmatched captures as null', async () => {
    const [doc] = await target.db
      .collection('s')
      .aggregate([
        { $limit: 1 },
        { $project: { _id: 0, m: { $regexFind: { input: '😀xab', regex: '(a)(z)?b' } } } },
      ])
      .toArray();
    expect(doc).toEqual({ m: { match: 'ab', idx: 2, captures: ['a', null] } });
  });

  it('takes PCRE syntax and options', async () => {
    const [doc] = await target.db
      .collection('s')
      .aggregate([
        { $limit: 1 },
        {
          $project: {
            _id: 0,
            m: { $regexFind: { input: 'aaab', regex: '(?>a+)(b)' } },
            n: { $regexMatch: { input: 'A B', regex: 'a b', options: 'ix' } },
          },
        },
      ])
      .toArray();
    expect(doc).toEqual({ m: { match: 'aaab', idx: 0, captures: ['b'] }, n: false });
  });
});

describe('regular expressions as stored values', () => {
  it('come back with the pattern and options they were stored with', async () => {
    const c = target.db.collection('stored');
    const values = [
      new BSONRegExp('a++', 'x'),
      new BSONRegExp('(?i)abc', ''),
      new BSONRegExp('^a.b$', 'ims'),
      new BSONRegExp('a/b', ''),
    ];
    await c.insertMany(values.map((r, i) => ({ _id: i as never, r })));
    const back = await c.find({}, { bsonRegExp: true }).sort({ _id: 1 }).toArray();
    expect(back.map((d) => [d.r.pattern, d.r.options])).toEqual(values.map((r) => [r.pattern, r.options]));
  });
});
