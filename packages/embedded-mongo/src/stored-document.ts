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
  const names = encodedNames(fields);
  const elements: Array<[start: number, end: number]> = [];
  let size = 5; // length and terminating zero
  for (const [, nameOffset, nameLength, offset, length] of BSON.onDemand.parseToElements(bytes)) {
    if (!names.some((name) => sameBytes(name, bytes, nameOffset, nameLength))) continue;
    elements.push([nameOffset - 1, offset + length]);
    size += offset + length - (nameOffset - 1);
  }
  return decodeDocument(documentOf(bytes, elements, size));
}

/** Field names as UTF-8, once per set: compared with each element's name where it lies, no string made. */
const encoded = new WeakMap<ReadonlySet<string>, Uint8Array[]>();
function encodedNames(fields: ReadonlySet<string>): Uint8Array[] {
  let names = encoded.get(fields);
  if (!names) {
    names = [...fields].map((name) => Buffer.from(name, 'utf8'));
    encoded.set(fields, names);
  }
  return names;
}

function sameBytes(name: Uint8Array, bytes: Uint8Array, offset: number, length: number): boolean {
  if (name.length !== length) return false;
  for (let i = 0; i < length; i++) if (name[i] !== bytes[offset + i]) return false;
  return true;
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

/**
 * From this size, a top-level field of a large document is stored apart from the rest (records.ts):
 * reading the other fields of a transcript then copies a few hundred bytes, not its 100 KB of lines.
 */
export const APART_FIELD_BYTES = 1024;

/** A field whose name is longer (in UTF-8 bytes) stays in the head: its name is part of an LMDB key. */
const LONGEST_APART_NAME = 256;

/** A top-level field stored apart: its name, and its element's bytes (type, name, value). */
export type ApartField = readonly [name: string, element: Uint8Array];

/**
 * A large document's BSON as the store keeps it: the head (a BSON document of its small fields)
 * followed by the apart fields' places (a BSON document `{a: [[position, name], ...]}`), and the
 * apart fields. A document with no large field is kept whole (`apart` empty, `head` the BSON).
 */
export function splitDocument(bson: Uint8Array): { head: Uint8Array; apart: ApartField[] } {
  if (bson.length < LARGE_DOCUMENT_BYTES) return { head: bson, apart: [] };
  const kept: Array<[number, number]> = [];
  const apart: ApartField[] = [];
  const places: Array<[number, string]> = [];
  let size = 5;
  let position = 0;
  for (const [, nameOffset, nameLength, offset, length] of BSON.onDemand.parseToElements(bson)) {
    const start = nameOffset - 1;
    const end = offset + length;
    if (end - start >= APART_FIELD_BYTES && nameLength <= LONGEST_APART_NAME) {
      const name = Buffer.from(bson.buffer, bson.byteOffset + nameOffset, nameLength).toString('utf8');
      apart.push([name, bson.slice(start, end)]);
      places.push([position, name]);
    } else {
      kept.push([start, end]);
      size += end - start;
    }
    position++;
  }
  if (apart.length === 0) return { head: bson, apart };
  const head = documentOf(bson, kept, size);
  const where = BSON.serialize({ a: places });
  const stored = new Uint8Array(head.length + where.length);
  stored.set(head);
  stored.set(where, head.length);
  return { head: stored, apart };
}

/** The BSON document at the start of a stored value: the whole document, or its head. */
export function headOf(stored: Uint8Array): Uint8Array {
  return stored.subarray(0, new DataView(stored.buffer, stored.byteOffset, 4).getInt32(0, true));
}

/** The names of the fields a stored value's document keeps apart, with their places; none for a whole one. */
export function apartPlaces(stored: Uint8Array): Array<[number, string]> {
  const size = new DataView(stored.buffer, stored.byteOffset, 4).getInt32(0, true);
  if (size === stored.length) return [];
  // To `length` said: lmdb's reused read buffer says a length of its own, which on Node 24 a
  // subarray without an end does not take (it would run to the buffer's 16 MB).
  return (BSON.deserialize(stored.subarray(size, stored.length)) as { a: Array<[number, string]> }).a;
}

/**
 * The document of a stored value and its apart fields (by name; one not given is left out, for a
 * read of some fields only), as one BSON document, its fields in their order.
 */
export function joinDocument(
  stored: Uint8Array,
  places: Array<[number, string]>,
  apart: ReadonlyMap<string, Uint8Array>,
): Uint8Array {
  const head = headOf(stored);
  const elements: Uint8Array[] = [];
  for (const [, nameOffset, , offset, length] of BSON.onDemand.parseToElements(head))
    elements.push(head.subarray(nameOffset - 1, offset + length));
  // In their places' order: each goes where it stood among the fields before it that are here.
  let left = 0;
  for (const [position, name] of places) {
    const element = apart.get(name);
    if (element) elements.splice(position - left, 0, element);
    else left++;
  }
  let total = 5;
  for (const element of elements) total += element.length;
  const document = new Uint8Array(total);
  new DataView(document.buffer).setInt32(0, total, true);
  let at = 4;
  for (const element of elements) {
    document.set(element, at);
    at += element.length;
  }
  return document;
}
