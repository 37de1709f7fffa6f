/**
 * Keyset pagination shared by every list. A cursor is opaque base64url JSON that names the list
 * it belongs to, a fingerprint of the filter it was made under, and the sort values of the last
 * row served. A cursor that does not decode, or belongs to another kind of list or to other
 * filters, is refused. Lists that exist once per parent (each webhook's deliveries) also name the
 * parent: such a list ignores a cursor of its kind made for another parent's list, because one
 * document pages many of them at once (`webhooks { deliveries(after: ...) }`) and a cursor can
 * only be meant for one.
 */
import { createHash } from 'node:crypto';
import { type Collection, type Document, type Filter, ObjectId, type Sort, type WithId } from 'mongodb';
import { DomainError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

/** What a sort field holds; a cursor's values must have these types (see decodeValue). */
export type KeysetValueType = 'date' | 'id' | 'number' | 'string';

/** One list's order: fields with directions and value types, the last of which is unique. */
export type KeysetOrder = readonly (readonly [field: string, direction: 1 | -1, type: KeysetValueType])[];

export interface PageRequest {
  first?: number | null;
  after?: string | null;
}

export interface Page<T> {
  items: T[];
  /** Cursor of each item, for Relay edges. */
  cursors: string[];
  hasNextPage: boolean;
  limit: number;
}

type CursorValue = string | number | { $date: string } | { $oid: string } | null;

interface CursorBody {
  l: string;
  /** Which list of its kind, for lists that exist once per parent. */
  o?: string;
  f: string;
  v: CursorValue[];
}

function fingerprint(filter: unknown): string {
  return createHash('sha256').update(JSON.stringify(filter)).digest('base64url').slice(0, 12);
}

function encodeValue(value: unknown): CursorValue {
  if (value instanceof Date) return { $date: value.toISOString() };
  if (value && typeof value === 'object' && 'toHexString' in value)
    return { $oid: (value as { toHexString(): string }).toHexString() };
  return value as CursorValue;
}

export function pageSize(first: number | null | undefined): number {
  const size = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `The page size (first; limit on REST) must be an integer from 1 to ${MAX_PAGE_SIZE}.`,
    );
  }
  return size;
}

/** What to do about any refused cursor: where a good one comes from, and how to start over. */
const cursorAdvice =
  'Pass the endCursor (next_cursor on REST) of the previous page of this same list, unchanged and with the same filters; leave the cursor out to start from the first page.';

export const invalidCursorMessage = `The cursor is not valid. ${cursorAdvice}`;

const invalid = () => new DomainError('BAD_USER_INPUT', invalidCursorMessage);

/**
 * Only values of the field's type come back out of a cursor: never an operator object a client
 * slipped in, nor a number where a date belongs (which would silently match nothing).
 */
function decodeValue(value: CursorValue, type: KeysetValueType): unknown {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      break;
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      break;
    case 'date':
      if (isSingleKey(value, '$date') && typeof value.$date === 'string') {
        const date = new Date(value.$date);
        if (!Number.isNaN(date.getTime())) return date;
      }
      break;
    case 'id':
      if (isSingleKey(value, '$oid') && typeof value.$oid === 'string' && /^[0-9a-f]{24}$/.test(value.$oid))
        return new ObjectId(value.$oid);
      break;
  }
  throw invalid();
}

function isSingleKey<K extends string>(value: unknown, key: K): value is Record<K, unknown> {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && key in value;
}

/**
 * A cursor for one list; `filterKey` is whatever identifies the list's filter (it is hashed);
 * `of` names the parent of a list that exists once per parent (a webhook's id for its deliveries).
 */
export class Keyset {
  private readonly print: string;

  constructor(
    private readonly list: string,
    private readonly order: KeysetOrder,
    filterKey: unknown,
    private readonly of?: string,
  ) {
    this.print = fingerprint(filterKey);
  }

  get sort(): Sort {
    return Object.fromEntries(this.order);
  }

  cursorOf(row: Document): string {
    const body: CursorBody = {
      l: this.list,
      ...(this.of === undefined ? {} : { o: this.of }),
      f: this.print,
      v: this.order.map(([field]) => encodeValue(row[field])),
    };
    return Buffer.from(JSON.stringify(body)).toString('base64url');
  }

  /**
   * The sort values of the row `cursor` points after, in the order's fields; undefined without
   * one (or with another parent's). Throws for a cursor this list does not accept.
   */
  position(cursor: string | null | undefined): unknown[] | undefined {
    const encoded = cursor ? this.decode(cursor) : undefined;
    return encoded?.map((value, i) => decodeValue(value, this.order[i]![2]));
  }

  /** The filter that selects the rows after `cursor`, or {} without one (or with another parent's). */
  after(cursor: string | null | undefined): Filter<Document> {
    const values = this.position(cursor);
    if (!values) return {};
    // (a < x) or (a = x and b < y) or ... for descending fields; > for ascending.
    const branches = this.order.map(([field, direction], i) => {
      const branch: Document = {};
      for (let j = 0; j < i; j++) branch[this.order[j]![0]] = values[j];
      branch[field] = { [direction === -1 ? '$lt' : '$gt']: values[i] };
      return branch;
    });
    return { $or: branches };
  }

  /** The cursor's sort values; undefined for a cursor of another parent's list of this kind. */
  private decode(cursor: string): CursorValue[] | undefined {
    let body: CursorBody;
    try {
      body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorBody;
    } catch {
      throw invalid();
    }
    if (
      !body ||
      typeof body !== 'object' ||
      body.l !== this.list ||
      (body.o !== undefined && typeof body.o !== 'string') ||
      !Array.isArray(body.v) ||
      body.v.length !== this.order.length
    ) {
      throw new DomainError('BAD_USER_INPUT', `The cursor belongs to another list. ${cursorAdvice}`);
    }
    if (body.o !== this.of) return undefined;
    if (body.f !== this.print)
      throw new DomainError(
        'BAD_USER_INPUT',
        'The cursor was made for other filters. Page with the filters of the page it came from, or leave the cursor out to start over with the new filters.',
      );
    return body.v;
  }
}

/** One page of `collection` under `filter`, in the keyset's order, after the request's cursor. */
export async function findPage<T extends Document>(
  collection: Collection<T>,
  keyset: Keyset,
  filter: Filter<T>,
  request: PageRequest,
): Promise<Page<WithId<T>>> {
  const limit = pageSize(request.first);
  const rows = await collection
    .find({ $and: [filter, keyset.after(request.after)] } as Filter<T>)
    .sort(keyset.sort)
    .limit(limit + 1)
    .toArray();
  const items = rows.slice(0, limit);
  return {
    items,
    cursors: items.map((row) => keyset.cursorOf(row)),
    hasNextPage: rows.length > limit,
    limit,
  };
}

export function emptyPage<T>(request: PageRequest): Page<T> {
  return { items: [], cursors: [], hasNextPage: false, limit: pageSize(request.first) };
}
