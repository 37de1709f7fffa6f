/**
 * JSON that is already serialised: stored content (a transcript is hundreds of kilobytes) travels
 * from the database to a REST answer or a webhook body as the bytes it was stored as, never turned
 * into objects and back. A RawJson sits in an answer where its value belongs; `serialiseJson`
 * writes the answer around it and copies its bytes in. Anything else that serialises it
 * (JSON.stringify, e.g. Yoga answering /graphql) gets the parsed value, so it is never wrong, only
 * slower.
 */
import { randomUUID } from 'node:crypto';

/** The bytes of RawJsons met by the `serialiseJson` running now (JSON.stringify is synchronous). */
let collecting: Uint8Array[] | null = null;

/**
 * What stands for a RawJson in the text JSON.stringify writes: NUL is always escaped by
 * JSON.stringify, and the process's random id cannot be guessed by whoever wrote the data.
 */
const PLACEHOLDER = `\u0000${randomUUID()}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/** `T`: the value's type, for whoever parses it. */
export class RawJson<T = unknown> {
  /** `bytes`: one UTF-8 JSON value, as JSON.stringify would write it. */
  constructor(readonly bytes: Uint8Array) {}

  static of<T>(value: T): RawJson<T> {
    return new RawJson<T>(Buffer.from(JSON.stringify(value)));
  }

  /** The value itself (costs a parse). */
  parse(): T {
    return JSON.parse(Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length).toString());
  }

  toJSON(): unknown {
    if (!collecting) return this.parse();
    collecting.push(this.bytes);
    return PLACEHOLDER;
  }
}

/**
 * `value` as UTF-8 JSON, in parts: the text around each RawJson and the RawJson's own bytes, in
 * order (written out as they are, without copying them into one buffer first).
 */
export function serialiseJsonParts(value: unknown): Uint8Array[] {
  const raw: Uint8Array[] = [];
  let text: string;
  collecting = raw;
  try {
    text = JSON.stringify(value) ?? 'null';
  } finally {
    collecting = null;
  }
  if (raw.length === 0) return [Buffer.from(text)];
  const parts = text.split(PLACEHOLDER_JSON);
  // Each placeholder written is one RawJson met, in order.
  if (parts.length !== raw.length + 1) throw new Error('serialiseJson: placeholders and values disagree');
  return parts.flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [raw[i - 1]!, Buffer.from(part)]));
}

/** The parts of what `serialiseJson` wrote, by the buffer it wrote them into. */
const partsWritten = new WeakMap<Uint8Array, readonly Uint8Array[]>();

/**
 * `value` as UTF-8 JSON, with each RawJson inside it copied in as its bytes. The parts are
 * remembered by the buffer returned (`partsOf`): a writer handed the buffer back (Yoga's answer)
 * can compress them one by one (http/spliced-gzip.ts).
 */
export function serialiseJson(value: unknown): Buffer {
  const parts = serialiseJsonParts(value);
  const joined = Buffer.concat(parts);
  if (parts.length > 1) partsWritten.set(joined, parts);
  return joined;
}

/** `value` as JSON text, each RawJson inside it copied in (for a writer that wants text). */
export function serialiseJsonText(value: unknown): string {
  return Buffer.concat(serialiseJsonParts(value)).toString();
}

/** `bytes` as the parts `serialiseJson` wrote them in, or as one part. */
export function partsOf(bytes: Uint8Array): readonly Uint8Array[] {
  return partsWritten.get(bytes) ?? [bytes];
}
