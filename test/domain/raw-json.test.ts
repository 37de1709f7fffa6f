/** RawJson: stored JSON copied into an answer as its bytes, or parsed by whoever else serialises it. */
import { describe, expect, it } from 'vitest';
import { RawJson, serialiseJson } from '../../src/domain/raw-json.js';

const transcript = [
  {
    speaker: { display_name: 'Zoë “Z” Ødegård', matched_calendar_invitee_email: null },
    text: 'a "quoted"\n\u2028line \u0000',
    timestamp: '00:00:01',
  },
];

describe('serialiseJson', () => {
  it('writes the answer around each RawJson and copies its bytes in, where its value belongs', () => {
    const answer = {
      items: [
        { title: 'Ünïcode ✓', transcript: RawJson.of(transcript), summary: RawJson.of(null) },
        { title: 'second', transcript: RawJson.of([]), summary: RawJson.of({ template_name: 'x' }) },
      ],
      next_cursor: null,
    };
    const bytes = serialiseJson(answer);
    expect(JSON.parse(bytes.toString())).toEqual({
      items: [
        { title: 'Ünïcode ✓', transcript, summary: null },
        { title: 'second', transcript: [], summary: { template_name: 'x' } },
      ],
      next_cursor: null,
    });
  });

  it('copies the stored bytes as they are (they are not parsed and written again)', () => {
    const stored = new RawJson(Buffer.from('[ 1,  2 ]'));
    expect(serialiseJson({ a: stored, b: 'x' }).toString()).toBe('{"a":[ 1,  2 ],"b":"x"}');
    expect(serialiseJson(stored).toString()).toBe('[ 1,  2 ]');
  });

  it('answers without RawJson exactly as JSON.stringify, data that looks like a placeholder included', () => {
    const value = { text: '\u0000', nested: [{ n: 1, s: '"\\u0000"' }], none: undefined };
    expect(serialiseJson(value).toString()).toBe(JSON.stringify(value));
    expect(serialiseJson({ raw: RawJson.of(1), text: '\u0000' }).toString()).toBe(
      '{"raw":1,"text":"\\u0000"}',
    );
  });

  it('anything else serialising a RawJson (JSON.stringify, as Yoga does for /graphql) gets its value', () => {
    expect(JSON.stringify({ t: RawJson.of(transcript) })).toBe(JSON.stringify({ t: transcript }));
    expect(RawJson.of({ a: [1] }).parse()).toEqual({ a: [1] });
  });
});
