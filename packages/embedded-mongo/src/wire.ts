// MongoDB wire protocol framing: OP_MSG (sections kind 0 and 1), legacy OP_QUERY (only used by
// drivers for the very first handshake) answered with OP_REPLY. OP_COMPRESSED is never advertised.
import { type Binary, BSON, type BSONRegExp, type Double, type Int32 } from 'bson';
import { normalizeNumber } from './numbers.js';
import { regexValue } from './pcre.js';
import { type Document, isPlainObject } from './values.js';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE_BYTES = 48_000_000;
const HEADER_SIZE = 16;

const MSG_CHECKSUM_PRESENT = 1 << 0;
const MSG_MORE_TO_COME = 1 << 1;
const MSG_EXHAUST_ALLOWED = 1 << 16;
/** Bits 0-15 are "required": an unknown one set means we must not process the message. */
const MSG_KNOWN_REQUIRED_BITS = MSG_CHECKSUM_PRESENT | MSG_MORE_TO_COME;

/** Raised for anything that makes a message unreadable; the connection is closed. */
export class WireProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireProtocolError';
  }
}

export interface MessageHeader {
  messageLength: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export interface OpMsgRequest {
  kind: 'msg';
  header: MessageHeader;
  flags: number;
  moreToCome: boolean;
  exhaustAllowed: boolean;
  /** Body (section kind 0) with any document sequences (kind 1) merged in under their identifier. */
  body: Document;
}

export interface OpQueryRequest {
  kind: 'query';
  header: MessageHeader;
  flags: number;
  fullCollectionName: string;
  numberToSkip: number;
  numberToReturn: number;
  query: Document;
}

export type Request = OpMsgRequest | OpQueryRequest;

// Nothing is promoted, so each number keeps its BSON type; `keepTypes` then unwraps the wrappers
// that plain JS numbers stand for (the representation is described in numbers.ts).
const DESERIALIZE_OPTIONS = {
  promoteLongs: false,
  promoteValues: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

/**
 * Replaces, in place, Int32 and Double wrappers by what the engine keeps, BSON regexes by RegExps
 * where JavaScript reads them unchanged (pcre.ts),
 * and binaries by copies: bson decodes a binary as a view of the message it came in, and a stored
 * document holding one would keep that whole message (a batch of a thousand documents) alive.
 */
function keepTypes(container: Document | unknown[]): void {
  // Plain loops: this runs over every value of every document received.
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const value = container[i];
      const replacement = kept(value);
      if (replacement !== value) container[i] = replacement;
    }
    return;
  }
  for (const key in container) {
    const value = container[key];
    const replacement = kept(value);
    if (replacement !== value) container[key] = replacement;
  }
}

function kept(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const tag = (value as { _bsontype?: string })._bsontype;
  if (tag === 'Int32' || tag === 'Double') return normalizeNumber(value as Int32 | Double);
  if (tag === 'BSONRegExp') return regexValue(value as BSONRegExp);
  if (tag === 'BSONSymbol') return String(value);
  if (tag === 'Binary') {
    const binary = value as Binary;
    binary.buffer = Buffer.from(binary.value()); // its own bytes (same class, subtype and length)
  }
  if (tag === undefined && (Array.isArray(value) || isPlainObject(value))) keepTypes(value);
  return value;
}

/** A BSON document as the engine keeps it: each value with its BSON type (see numbers.ts). */
export function decodeDocument(bytes: Uint8Array): Document {
  const doc = BSON.deserialize(bytes, DESERIALIZE_OPTIONS) as Document;
  keepTypes(doc);
  return doc;
}

function readDocument(buf: Buffer, offset: number, end: number): { doc: Document; size: number } {
  if (offset + 5 > end) throw new WireProtocolError('truncated BSON document');
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new WireProtocolError(`invalid BSON document size ${size}`);
  try {
    return { doc: decodeDocument(buf.subarray(offset, offset + size)), size };
  } catch (err) {
    throw new WireProtocolError(`invalid BSON: ${(err as Error).message}`);
  }
}

function readCString(buf: Buffer, offset: number, end: number): { value: string; next: number } {
  const zero = buf.indexOf(0, offset);
  if (zero === -1 || zero >= end) throw new WireProtocolError('unterminated cstring');
  return { value: buf.toString('utf8', offset, zero), next: zero + 1 };
}

/**
 * Accumulates TCP chunks and yields complete messages. Throws WireProtocolError when the length
 * prefix is impossible (the caller then drops the connection).
 */
export class MessageFramer {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(4);
      const length = head.readInt32LE(0);
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE_BYTES) {
        throw new WireProtocolError(`invalid message length ${length}`);
      }
      if (this.buffered < length) break;
      messages.push(this.take(length));
    }
    return messages;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0]!;
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    return out;
  }
}

export function parseHeader(buf: Buffer): MessageHeader {
  if (buf.length < HEADER_SIZE) throw new WireProtocolError('message shorter than header');
  return {
    messageLength: buf.readInt32LE(0),
    requestId: buf.readInt32LE(4),
    responseTo: buf.readInt32LE(8),
    opCode: buf.readInt32LE(12),
  };
}

/** Parses one complete message (as produced by MessageFramer). */
export function parseMessage(buf: Buffer): Request {
  const header = parseHeader(buf);
  if (header.messageLength !== buf.length) throw new WireProtocolError('message length mismatch');
  switch (header.opCode) {
    case OP_MSG:
      return parseOpMsg(buf, header);
    case OP_QUERY:
      return parseOpQuery(buf, header);
    default:
      throw new WireProtocolError(`unsupported opCode ${header.opCode}`);
  }
}

function parseOpMsg(buf: Buffer, header: MessageHeader): OpMsgRequest {
  if (buf.length < HEADER_SIZE + 5) throw new WireProtocolError('OP_MSG too short');
  const flags = buf.readUInt32LE(HEADER_SIZE);
  const unknownRequired = flags & 0xffff & ~MSG_KNOWN_REQUIRED_BITS;
  if (unknownRequired !== 0) throw new WireProtocolError(`unsupported OP_MSG flag bits ${unknownRequired}`);
  let end = buf.length;
  if (flags & MSG_CHECKSUM_PRESENT) end -= 4; // CRC-32C is not verified (TCP on localhost)
  let offset = HEADER_SIZE + 4;
  let body: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = buf[offset];
    offset += 1;
    if (kind === 0) {
      if (body) throw new WireProtocolError('OP_MSG has more than one body section');
      const { doc, size } = readDocument(buf, offset, end);
      body = doc;
      offset += size;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new WireProtocolError('truncated document sequence');
      const size = buf.readInt32LE(offset);
      const seqEnd = offset + size;
      if (size < 5 || seqEnd > end) throw new WireProtocolError('invalid document sequence size');
      const { value: identifier, next } = readCString(buf, offset + 4, seqEnd);
      const docs: Document[] = [];
      let pos = next;
      while (pos < seqEnd) {
        const { doc, size: docSize } = readDocument(buf, pos, seqEnd);
        docs.push(doc);
        pos += docSize;
      }
      sequences.push([identifier, docs]);
      offset = seqEnd;
    } else {
      throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireProtocolError('OP_MSG without body section');
  for (const [identifier, docs] of sequences) {
    if (identifier in body) throw new WireProtocolError(`duplicate field '${identifier}' in OP_MSG`);
    body[identifier] = docs;
  }
  return {
    kind: 'msg',
    header,
    flags,
    moreToCome: (flags & MSG_MORE_TO_COME) !== 0,
    exhaustAllowed: (flags & MSG_EXHAUST_ALLOWED) !== 0,
    body,
  };
}

function parseOpQuery(buf: Buffer, header: MessageHeader): OpQueryRequest {
  let offset = HEADER_SIZE;
  if (buf.length < offset + 4) throw new WireProtocolError('OP_QUERY too short');
  const flags = buf.readInt32LE(offset);
  offset += 4;
  const { value: fullCollectionName, next } = readCString(buf, offset, buf.length);
  offset = next;
  if (buf.length < offset + 8) throw new WireProtocolError('OP_QUERY too short');
  const numberToSkip = buf.readInt32LE(offset);
  const numberToReturn = buf.readInt32LE(offset + 4);
  offset += 8;
  const { doc: query, size } = readDocument(buf, offset, buf.length);
  offset += size;
  if (offset < buf.length) readDocument(buf, offset, buf.length); // returnFieldsSelector, validated only
  return { kind: 'query', header, flags, fullCollectionName, numberToSkip, numberToReturn, query };
}

function writeHeader(buf: Buffer, requestId: number, responseTo: number, opCode: number): void {
  buf.writeInt32LE(buf.length, 0);
  buf.writeInt32LE(requestId, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
}

const SERIALIZE_OPTIONS = { ignoreUndefined: true } as const;

/** OP_MSG reply with a single kind-0 section. */
export function serializeOpMsg(requestId: number, responseTo: number, doc: Document, flags = 0): Buffer {
  const body = BSON.serialize(doc, SERIALIZE_OPTIONS);
  const buf = Buffer.allocUnsafe(HEADER_SIZE + 4 + 1 + body.length);
  writeHeader(buf, requestId, responseTo, OP_MSG);
  buf.writeUInt32LE(flags, HEADER_SIZE);
  buf[HEADER_SIZE + 4] = 0;
  buf.set(body, HEADER_SIZE + 5);
  return buf;
}

/** OP_REPLY (answer to a legacy OP_QUERY). */
export function serializeOpReply(
  requestId: number,
  responseTo: number,
  docs: Document[],
  responseFlags = 8,
): Buffer {
  const bodies = docs.map((doc) => BSON.serialize(doc, SERIALIZE_OPTIONS));
  const total = HEADER_SIZE + 20 + bodies.reduce((n, b) => n + b.length, 0);
  const buf = Buffer.allocUnsafe(total);
  writeHeader(buf, requestId, responseTo, OP_REPLY);
  buf.writeInt32LE(responseFlags, HEADER_SIZE);
  buf.writeBigInt64LE(0n, HEADER_SIZE + 4); // cursorID
  buf.writeInt32LE(0, HEADER_SIZE + 12); // startingFrom
  buf.writeInt32LE(docs.length, HEADER_SIZE + 16); // numberReturned
  let offset = HEADER_SIZE + 20;
  for (const body of bodies) {
    buf.set(body, offset);
    offset += body.length;
  }
  return buf;
}

/** Builds an OP_MSG request (used by tests and tools that speak to the engine directly). */
export function serializeOpMsgRequest(requestId: number, body: Document, flags = 0): Buffer {
  return serializeOpMsg(requestId, 0, body, flags);
}

/** Parses an OP_MSG or OP_REPLY reply into its first document (for tests/tools). */
export function parseReply(buf: Buffer): { header: MessageHeader; doc: Document } {
  const header = parseHeader(buf);
  if (header.opCode === OP_MSG) {
    const { doc } = readDocument(buf, HEADER_SIZE + 5, buf.length);
    return { header, doc };
  }
  if (header.opCode === OP_REPLY) {
    const { doc } = readDocument(buf, HEADER_SIZE + 20, buf.length);
    return { header, doc };
  }
  throw new WireProtocolError(`unexpected reply opCode ${header.opCode}`);
}

export const OP_MSG_FLAGS = {
  checksumPresent: MSG_CHECKSUM_PRESENT,
  moreToCome: MSG_MORE_TO_COME,
  exhaustAllowed: MSG_EXHAUST_ALLOWED,
} as const;
