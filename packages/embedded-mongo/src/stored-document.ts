// Stored documents decoded from their BSON no more than a read needs. The engine often reads a few
// fields of a large document (a projection, a sort key, the fields a filter tests): a transcript
// of 100 KB decoded whole costs a few ms and thousands of objects, to answer its `recordingId`.
// A find that says which top-level fields it reads gets those alone (partialDocument); any other
// read of a large document gets it with each top-level field decoded when first read (lazyDocument).
// Finding where each top-level field lies is cheap (bson's onDemand.parseToElements walks the
// element headers and skips the values); each field is decoded on first read and then kept as a
// plain property. Reading every field (a reply, a spread, BSON.serialize) decodes it all, so the
// result is the document decodeDocument gives, field for field and in the same order.
import { BSON } from 'bson';
import type { Document } from './values.js';
import { decodeDocument } from './wire.js';

/** From this size a document is large: decoded field by field. Smaller ones are decoded whole, cheaply. */
export const LARGE_DOCUMENT_BYTES = 16 * 1024;

/** A document read from the store: decoded whole when small, field by field when large. */
export function storedDocument(bytes: Uint8Array): Document {
  return bytes.length < LARGE_DOCUMENT_BYTES ? decodeDocument(bytes) : lazyDocument(bytes);
}

/** The document of `bytes` (which it keeps: they must not be reused), each field decoded when read. */
export function lazyDocument(bytes: Uint8Array): Document {
  const doc: Document = {};
  for (const [, nameOffset, nameLength, offset, length] of BSON.onDemand.parseToElements(bytes)) {
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + nameOffset, nameLength).toString('utf8');
    // The element: its type byte (just before the name), name, and value.
    const start = nameOffset - 1;
    const end = offset + length;
    Object.defineProperty(doc, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = decodeElement(bytes, start, end, name);
        Object.defineProperty(doc, name, { value, enumerable: true, writable: true, configurable: true });
        return value;
      },
    });
  }
  return doc;
}

/**
 * Only the top-level `fields` of the document of `bytes`, in its order, decoded as decodeDocument
 * decodes them; `bytes` are not kept (LMDB's reused read buffer will do).
 */
export function partialDocument(bytes: Uint8Array, fields: ReadonlySet<string>): Document {
  const elements: Array<[start: number, end: number]> = [];
  let size = 5; // length and terminating zero
  for (const [, nameOffset, nameLength, offset, length] of BSON.onDemand.parseToElements(bytes)) {
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + nameOffset, nameLength).toString('utf8');
    if (!fields.has(name)) continue;
    elements.push([nameOffset - 1, offset + length]);
    size += offset + length - (nameOffset - 1);
  }
  return decodeDocument(documentOf(bytes, elements, size));
}

/** One element decoded as decodeDocument decodes it: as the only field of a document of its own. */
function decodeElement(bytes: Uint8Array, start: number, end: number, name: string): unknown {
  return decodeDocument(documentOf(bytes, [[start, end]], 4 + (end - start) + 1))[name];
}

/** A BSON document of `size` bytes made of the elements of `bytes` between each start and end. */
function documentOf(bytes: Uint8Array, elements: Array<[number, number]>, size: number): Uint8Array {
  const document = new Uint8Array(size); // its last byte, the terminating zero, is 0 already
  new DataView(document.buffer).setInt32(0, size, true);
  let at = 4;
  for (const [start, end] of elements) {
    document.set(bytes.subarray(start, end), at);
    at += end - start;
  }
  return document;
}
