// Text search: text indexes, `$text` and `{$meta: "textScore"}`, as MongoDB's manual and server
// define them (English stemming and stop words, phrases, negation, weights, the `none` language).
import type { Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('text');
});

afterAll(async () => {
  await target?.close();
});

const coll = (name: string) => target.db.collection<any>(name);

/** The `_id`s a search finds, in natural order unless `sorted` by score. */
async function ids(name: string, search: string, filter: Document = {}): Promise<unknown[]> {
  const docs = await coll(name)
    .find({ $text: { $search: search }, ...filter }, { projection: { _id: 1 } })
    .sort({ _id: 1 })
    .toArray();
  return docs.map((d) => d._id);
}

async function ranked(name: string, search: string): Promise<unknown[]> {
  const docs = await coll(name)
    .find({ $text: { $search: search } }, { projection: { score: { $meta: 'textScore' } } })
    .sort({ score: { $meta: 'textScore' } })
    .toArray();
  return docs.map((d) => d._id);
}

describe('text indexes', () => {
  it('are listed in mongod’s shape, once per collection', async () => {
    const c = coll('text_shape');
    const name = await c.createIndex({ title: 'text', meetingTitle: 'text' }, { weights: { title: 10 } });
    expect(name).toBe('title_text_meetingTitle_text');
    const index = (await c.listIndexes().toArray()).find((i) => i.name === name)!;
    expect(index).toMatchObject({
      key: { _fts: 'text', _ftsx: 1 },
      weights: { title: 10, meetingTitle: 1 },
      default_language: 'english',
      language_override: 'language',
      textIndexVersion: 3,
    });
    // The same definition again is no change; a second, different text index is refused.
    expect(await c.createIndex({ title: 'text', meetingTitle: 'text' }, { weights: { title: 10 } })).toBe(
      name,
    );
    expect((await rejection(c.createIndex({ body: 'text' }))).code).toBe(85);
    expect((await c.listIndexes().toArray()).length).toBe(2);
  });

  it('a wildcard text index, its options, and dropping it by name', async () => {
    const c = coll('text_wildcard');
    await c.createIndex(
      { '$**': 'text' },
      { name: 'everything', default_language: 'none', language_override: 'lang' },
    );
    const index = (await c.listIndexes().toArray()).find((i) => i.name === 'everything')!;
    expect(index).toMatchObject({
      weights: { '$**': 1 },
      default_language: 'none',
      language_override: 'lang',
    });
    await c.insertMany([
      { _id: 1, a: 'alpha', nested: { deep: ['beta'] } },
      { _id: 2, b: 5 },
    ]);
    expect(await ids('text_wildcard', 'beta')).toEqual([1]);
    await c.dropIndex('everything');
    expect((await rejection(c.find({ $text: { $search: 'alpha' } }).toArray())).code).toBe(27);
  });

  it('a collection without one answers $text with IndexNotFound (27)', async () => {
    const c = coll('text_none');
    await c.insertOne({ s: 'words' });
    const err = await rejection(c.find({ $text: { $search: 'words' } }).toArray());
    expect(err.code).toBe(27);
    expect(err.message).toContain('text index required for $text query');
  });
});

describe('$text in English', () => {
  const name = 'text_english';
  beforeAll(async () => {
    const c = coll(name);
    await c.createIndex({ title: 'text', body: 'text' }, { weights: { title: 10 } });
    await c.insertMany([
      { _id: 1, title: 'Weekly meetings', body: 'We went over the budget and the roadmap.', team: 'a' },
      { _id: 2, title: 'Planning', body: 'The meeting ran long; he runs it every week.', team: 'b' },
      { _id: 3, title: 'Retro', body: 'The action items were assigned to Zoë.', team: 'a' },
      { _id: 4, title: 'Notes', body: 'Items for action: book the CAFÉ, order tea.', team: 'b' },
      { _id: 5, title: 'Numbers', body: 42 },
    ]);
  });

  it('matches stems: "meetings" finds "meeting", "running" finds "runs"', async () => {
    expect(await ids(name, 'meetings')).toEqual([1, 2]);
    expect(await ids(name, 'running')).toEqual([2]);
  });

  it('ORs the terms, ignoring case and diacritics', async () => {
    expect(await ids(name, 'roadmap tea')).toEqual([1, 4]);
    expect(await ids(name, 'cafe')).toEqual([4]);
    expect(await ids(name, 'ZOE')).toEqual([3]);
  });

  it('leaves stop words out: a search of stop words alone finds nothing', async () => {
    expect(await ids(name, 'the and were')).toEqual([]);
    expect(await ids(name, 'the budget')).toEqual([1]);
  });

  it('requires every quoted phrase, as a case-insensitive substring', async () => {
    expect(await ids(name, 'action items')).toEqual([3, 4]);
    expect(await ids(name, '"action items"')).toEqual([3]);
    expect(await ids(name, '"ACTION ITEMS" "assigned to"')).toEqual([3]);
    // A phrase only narrows: its words are the terms that find the candidates.
    expect(await ids(name, '"ion items"')).toEqual([3]);
    expect(await ids(name, '"ion ite"')).toEqual([]);
    expect(await ids(name, '"items were" "book the"')).toEqual([]);
  });

  it('excludes negated terms and phrases; negations alone find nothing', async () => {
    expect(await ids(name, 'meeting -budget')).toEqual([2]);
    expect(await ids(name, 'action -"action items"')).toEqual([4]);
    expect(await ids(name, '-budget')).toEqual([]);
    // A hyphen inside a word is no negation: both halves are terms.
    expect(await ids(name, 'road-budget')).toEqual([1]);
  });

  it('combines with other conditions, in find, countDocuments, distinct and aggregate', async () => {
    expect(await ids(name, 'meeting action', { team: 'b' })).toEqual([2, 4]);
    expect(await ids(name, 'meeting', { $and: [{ team: 'a' }] })).toEqual([1]);
    const c = coll(name);
    expect(await c.countDocuments({ $text: { $search: 'action meeting' }, team: 'a' })).toBe(2);
    expect((await c.distinct('team', { $text: { $search: 'action' } })).sort()).toEqual(['a', 'b']);
    const grouped = await c
      .aggregate([
        { $match: { $text: { $search: 'meeting action' } } },
        { $group: { _id: '$team', n: { $sum: 1 } } },
      ])
      .toArray();
    expect(grouped.sort((x, y) => String(x._id).localeCompare(String(y._id)))).toEqual([
      { _id: 'a', n: 2 },
      { _id: 'b', n: 2 },
    ]);
  });

  it('is refused where mongod refuses it', async () => {
    const c = coll(name);
    const two = { $text: { $search: 'a' }, $and: [{ $text: { $search: 'b' } }] };
    expect((await rejection(c.find(two).toArray())).code).toBe(2);
    expect((await rejection(c.find({ $nor: [{ $text: { $search: 'b' } }] }).toArray())).code).toBe(2);
    const late = c.aggregate([{ $match: { team: 'a' } }, { $match: { $text: { $search: 'meeting' } } }]);
    expect((await rejection(late.toArray())).code).toBe(17313);
    const unscored = c.find({ team: 'a' }, { projection: { score: { $meta: 'textScore' } } });
    expect((await rejection(unscored.toArray())).code).toBe(40218);
  });

  it('is planned on the text index', async () => {
    const explained = await coll(name)
      .find({ $text: { $search: 'meeting' }, team: 'a' })
      .explain('queryPlanner');
    expect(JSON.stringify(explained.queryPlanner.winningPlan)).toContain('TEXT_MATCH');
  });
});

describe('phrases, as substrings of one string', () => {
  const name = 'text_phrases';
  beforeAll(async () => {
    await coll(name).createIndex({ body: 'text' });
    await coll(name).insertMany([
      { _id: 1, body: 'budget roadmap review' },
      { _id: 2, body: 'the budget, roadmap later' },
      { _id: 3, body: 'microbudget roadmaps' },
      { _id: 4, body: 'budget  roadmap' },
      { _id: 5, body: ['budget', 'roadmap'] },
      { _id: 6, body: 'Budget Roadmap' },
      { _id: 7, body: 'budget\nroadmap' },
      { _id: 8, body: 'café budget roadmap' },
    ]);
  });

  it('hold across exactly the characters between their words, and nowhere across two strings', async () => {
    expect(await ids(name, '"budget roadmap"')).toEqual([1, 3, 6, 8]);
    expect(await ids(name, '"budget, roadmap"')).toEqual([2]);
    expect(await ids(name, '"budget  roadmap"')).toEqual([4]);
    expect(await ids(name, '"budget\nroadmap"')).toEqual([7]);
  });

  it('may start inside a word and end inside one, or be a part of one word', async () => {
    // The phrase's words are the terms that find candidates: `roadmap` here.
    expect(await ids(name, 'roadmap "get road"')).toEqual([1, 3, 6, 8]);
    expect(await ids(name, 'budget "udge"')).toEqual([1, 2, 4, 5, 6, 7, 8]);
    expect(await ids(name, 'roadmap " roadmap"')).toEqual([1, 2, 3, 4, 6, 8]);
    expect(await ids(name, 'roadmap "roadmap "')).toEqual([1, 2]);
  });

  it('negated, case-sensitive, and after the text changes', async () => {
    expect(await ids(name, '"budget roadmap" -"roadmap review"')).toEqual([3, 6, 8]);
    expect(await ids(name, 'roadmap -"budget roadmap"')).toEqual([2, 4, 5, 7]);
    const sensitive = await coll(name)
      .find({ $text: { $search: '"Budget Roadmap"', $caseSensitive: true } })
      .toArray();
    expect(sensitive.map((d) => d._id)).toEqual([6]);
    await coll(name).updateOne({ _id: 1 }, { $set: { body: 'roadmap budget' } });
    await coll(name).deleteOne({ _id: 6 });
    await coll(name).insertOne({ _id: 9, body: 'a budget roadmap, again' });
    expect(await ids(name, '"budget roadmap"')).toEqual([3, 8, 9]);
    // The same words, moved: no term or score changes, the phrase does.
    await coll(name).updateOne({ _id: 2 }, { $set: { body: 'the budget roadmap, later' } });
    expect(await ids(name, '"budget roadmap"')).toEqual([2, 3, 8, 9]);
  });
});

describe('a text index built over many documents', () => {
  it('answers as soon as createIndex does, words and phrases alike', async () => {
    // 3,000 documents of 150 words each: the embedded engine writes such a build as it goes.
    const c = coll('text_large_build');
    const words = Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}x`);
    let seed = 1;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const docs = Array.from({ length: 3_000 }, (_, i) => ({
      _id: i,
      body: Array.from({ length: 150 }, () => words[Math.floor(next() * words.length)]).join(' '),
    }));
    await c.insertMany(docs);
    await c.createIndex({ body: 'text' });
    const phrase = `${words[1]} ${words[2]}`;
    const holding = docs.filter((d) => d.body.includes(phrase)).map((d) => d._id);
    expect(holding.length).toBeGreaterThan(10);
    expect(await ids('text_large_build', `"${phrase}"`)).toEqual(holding);
    const withWord = docs.filter((d) => d.body.split(' ').includes(words[7]!)).map((d) => d._id);
    expect(await ids('text_large_build', words[7]!)).toEqual(withWord);
  });
});

describe('a word longer than any index key', () => {
  it('is found as a word and in phrases, and writes go on', async () => {
    const c = coll('text_long_word');
    await c.createIndex({ body: 'text' });
    const blob = 'q'.repeat(3_000);
    await c.insertMany([
      { _id: 1, body: `pasted ${blob} then budget roadmap` },
      { _id: 2, body: `another ${blob}z here` },
      { _id: 3, body: 'budget roadmap alone' },
    ]);
    expect(await ids('text_long_word', blob)).toEqual([1]);
    expect(await ids('text_long_word', `"${blob} then"`)).toEqual([1]);
    expect(await ids('text_long_word', '"budget roadmap"')).toEqual([1, 3]);
    expect(await ids('text_long_word', `pasted "qqq then budget"`)).toEqual([1]);
    await c.insertOne({ _id: 4, body: 'budget roadmap again' });
    expect(await ids('text_long_word', '"budget roadmap"')).toEqual([1, 3, 4]);
    // A NUL inside a word is part of it.
    await c.insertOne({ _id: 5, body: 'nul\u0000word' });
    expect(await ids('text_long_word', 'nul\u0000word')).toEqual([5]);
    expect(await ids('text_long_word', 'nul')).toEqual([]);
  });
});

describe('$caseSensitive and $diacriticSensitive', () => {
  it('keep the case or the accents of the search words', async () => {
    const c = coll('text_sensitive');
    await c.createIndex({ body: 'text' });
    await c.insertMany([
      { _id: 1, body: 'Coffee at the Café' },
      { _id: 2, body: 'coffee at the cafe' },
    ]);
    const find = async (text: { $search: string; $caseSensitive?: boolean; $diacriticSensitive?: boolean }) =>
      (await c.find({ $text: text }).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await find({ $search: 'coffee' })).toEqual([1, 2]);
    expect(await find({ $search: 'Coffee', $caseSensitive: true })).toEqual([1]);
    expect(await find({ $search: 'café', $diacriticSensitive: true })).toEqual([1]);
    expect(await find({ $search: 'cafe', $diacriticSensitive: true })).toEqual([2]);
    expect(await find({ $search: '"the cafe"', $diacriticSensitive: true })).toEqual([2]);
  });
});

describe('textScore', () => {
  const name = 'text_scores';
  beforeAll(async () => {
    const c = coll(name);
    await c.createIndex({ title: 'text', body: 'text' }, { weights: { title: 10 } });
    await c.insertMany([
      {
        _id: 1,
        title: 'Quarterly review',
        body: 'A long body that mentions the budget once among many other words.',
      },
      { _id: 2, title: 'Budget', body: 'Nothing else.' },
      { _id: 3, title: 'Misc', body: 'budget budget budget' },
    ]);
  });

  it('orders by weight and by occurrences, highest first', async () => {
    expect(await ranked(name, 'budget')).toEqual([2, 3, 1]);
  });

  it('best first with a limit, skip and other conditions: the same as the whole list sorted', async () => {
    const c = coll('text_top');
    await c.createIndex({ body: 'text' });
    await c.insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        _id: i,
        team: i % 3,
        body: `${'budget '.repeat(1 + (i % 7))}and ${'filler '.repeat(i % 11)}notes`,
      })),
    );
    const search = { $text: { $search: 'budget' } };
    const score = { score: { $meta: 'textScore' } } as const;
    const all = await c.find(search, { projection: score }).toArray();
    const best = all
      .filter((d) => d.team !== 1)
      .sort((a, b) => b.score - a.score || a._id - b._id)
      .map((d) => d.score);
    const top = await c
      .find({ ...search, team: { $ne: 1 } }, { projection: score })
      .sort(score)
      .skip(5)
      .limit(10)
      .toArray();
    expect(top.map((d) => d.score)).toEqual(best.slice(5, 15));
    if (target.embedded) {
      // Read best first, the documents after the page are not read.
      const explained = await c
        .find({ ...search, team: { $ne: 1 } })
        .sort(score)
        .limit(10)
        .explain('executionStats');
      expect(explained.executionStats.totalDocsExamined).toBeLessThan(all.length);
    }
  });

  it('is projected in find, beside the fields asked for', async () => {
    const docs = await coll(name)
      .find({ $text: { $search: 'budget' } }, { projection: { title: 1, score: { $meta: 'textScore' } } })
      .sort({ score: { $meta: 'textScore' } })
      .toArray();
    expect(docs.map((d) => Object.keys(d).sort())).toEqual([
      ['_id', 'score', 'title'],
      ['_id', 'score', 'title'],
      ['_id', 'score', 'title'],
    ]);
    expect(docs[0]!.score).toBeGreaterThan(docs[1]!.score);
    expect(docs[1]!.score).toBeGreaterThan(docs[2]!.score);
    expect(docs[2]!.score).toBeGreaterThan(0);
  });

  it('is read by aggregation stages after a first $match', async () => {
    const docs = await coll(name)
      .aggregate([
        { $match: { $text: { $search: 'budget' } } },
        { $addFields: { score: { $meta: 'textScore' } } },
        { $sort: { score: { $meta: 'textScore' } } },
        { $project: { _id: 1, double: { $multiply: [{ $meta: 'textScore' }, 2] }, score: 1 } },
      ])
      .toArray();
    expect(docs.map((d) => d._id)).toEqual([2, 3, 1]);
    for (const d of docs) expect(d.double).toBeCloseTo(d.score * 2);
    expect(Object.keys(docs[0]!).sort()).toEqual(['_id', 'double', 'score']);
  });
});

describe('arrays of sub-documents', () => {
  it('indexes each entry of entries.text', async () => {
    const c = coll('text_entries');
    await c.createIndex({ 'entries.text': 'text' });
    await c.insertMany([
      {
        _id: 1,
        recordingId: 10,
        entries: [
          { speaker: 'Ann', text: 'Let us review the deployment plan' },
          { speaker: 'Bob', text: 'The deployment is scheduled for Friday' },
        ],
      },
      { _id: 2, recordingId: 11, entries: [{ speaker: 'Cy', text: 'Lunch plans for Friday?' }] },
      {
        _id: 3,
        recordingId: 12,
        entries: [{ speaker: 'Dee', text: 'deployment' }],
        title: 'no entries text',
      },
      { _id: 4, recordingId: 13, speaker: 'deployment' },
    ]);
    expect(await ids('text_entries', 'deployments')).toEqual([1, 3]);
    expect(await ids('text_entries', '"scheduled for friday"')).toEqual([1]);
    expect(await ids('text_entries', 'friday', { recordingId: { $in: [11, 12] } })).toEqual([2]);
    // Two mentions in a transcript outrank one.
    expect((await ranked('text_entries', 'deployment'))[0]).toBe(1);
  });
});

describe('the index follows writes', () => {
  it('insert, $set, replace, upsert and delete', async () => {
    const c = coll('text_writes');
    await c.createIndex({ body: 'text' });
    await c.insertOne({ _id: 1, body: 'first draft' });
    expect(await ids('text_writes', 'draft')).toEqual([1]);
    await c.updateOne({ _id: 1 }, { $set: { body: 'final version' } });
    expect(await ids('text_writes', 'draft')).toEqual([]);
    expect(await ids('text_writes', 'final')).toEqual([1]);
    await c.updateOne({ _id: 1 }, { $set: { other: 1 } });
    expect(await ids('text_writes', 'final')).toEqual([1]);
    await c.replaceOne({ _id: 1 }, { body: 'rewritten text' });
    expect(await ids('text_writes', 'final')).toEqual([]);
    expect(await ids('text_writes', 'rewritten')).toEqual([1]);
    await c.updateOne({ _id: 2 }, { $set: { body: 'upserted words' } }, { upsert: true });
    expect(await ids('text_writes', 'upserted rewritten')).toEqual([1, 2]);
    await c.deleteOne({ _id: 1 });
    expect(await ids('text_writes', 'upserted rewritten')).toEqual([2]);
    await c.updateMany({ $text: { $search: 'upserted' } }, { $set: { found: true } });
    expect(await c.findOne({ _id: 2 })).toMatchObject({ found: true });
  });
});

describe('the none language', () => {
  it('neither stems nor drops stop words, per index or per document', async () => {
    const c = coll('text_languages');
    await c.createIndex({ body: 'text' });
    await c.insertMany([
      { _id: 1, body: 'the meetings' },
      { _id: 2, body: 'the meetings', language: 'none' },
    ]);
    // The search is read in the index's language unless it names one.
    expect(await ids('text_languages', 'meetings')).toEqual([1]);
    expect(await ids('text_languages', 'the')).toEqual([]);
    const inNone = async (search: string) =>
      (await c.find({ $text: { $search: search, $language: 'none' } }).toArray()).map((d) => d._id);
    expect(await inNone('meetings')).toEqual([2]);
    expect(await inNone('the')).toEqual([2]);

    const plain = coll('text_plain');
    await plain.createIndex({ body: 'text' }, { default_language: 'none' });
    await plain.insertMany([
      { _id: 1, body: 'the meetings' },
      { _id: 2, body: 'a meeting' },
    ]);
    expect(await ids('text_plain', 'meeting')).toEqual([2]);
    expect(await ids('text_plain', 'the')).toEqual([1]);
  });

  it("an update of a document's language alone indexes its words again", async () => {
    const c = coll('text_relanguage');
    await c.createIndex({ body: 'text' });
    await c.insertOne({ _id: 1, body: 'the meetings', language: 'none' });
    expect(await ids('text_relanguage', 'meeting')).toEqual([]);
    await c.updateOne({ _id: 1 }, { $set: { language: 'english', seen: 1 } });
    expect(await ids('text_relanguage', 'meeting')).toEqual([1]);
    // An update of other fields keeps what the words are found by.
    await c.updateOne({ _id: 1 }, { $set: { seen: 2 } });
    expect(await ids('text_relanguage', 'meeting')).toEqual([1]);
  });
});
