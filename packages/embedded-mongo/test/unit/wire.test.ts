/** Documents as the engine decodes them from a message: values of their own, not views of it. */
import { Binary, BSON, UUID } from 'bson';
import { describe, expect, it } from 'vitest';
import { decodeDocument } from '../../src/wire.js';

describe('decodeDocument', () => {
  it('gives binaries bytes of their own: the message they came in can be reused or freed', () => {
    const id = new UUID();
    const message = BSON.serialize({
      json: new Binary(Buffer.from('[1,2,3]')),
      id,
      nested: [{ b: new Binary(Buffer.from('xy'), 0x80) }],
    });
    const doc = decodeDocument(message);
    message.fill(0); // what a reused or recycled buffer would do
    expect(Buffer.from((doc.json as Binary).value()).toString()).toBe('[1,2,3]');
    expect((doc.id as Binary).sub_type).toBe(4);
    expect((doc.id as Binary).toUUID().toHexString()).toBe(id.toHexString());
    const nested = (doc.nested as { b: Binary }[])[0]!.b;
    expect(nested.sub_type).toBe(0x80);
    expect(Buffer.from(nested.value()).toString()).toBe('xy');
  });
});
