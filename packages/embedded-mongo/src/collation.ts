// Collation: mongod's `collation` documents parsed and validated as mongod parses them (its IDL
// `Collation` struct, then its ICU collator factory: same codes, same messages), and the string
// comparison each one stands for. ICU compares, through Intl.Collator (Node ships full ICU):
// nothing here orders strings by hand. Only strings compare by a collation; every other BSON value
// keeps its order, inside arrays and documents too (values.ts compareValues).
import { CommandError, ErrorCode } from './errors.js';
import { numericKind, toDouble } from './numbers.js';
import {
  type Document,
  formatValue,
  isPlainObject,
  keyString,
  type StringComparator,
  typeName,
} from './values.js';

/** A non-simple collation: `undefined` stands for the simple one (binary, code point order). */
export class Collation {
  constructor(
    /** As mongod shows it (listCollections): every field, the locale's defaults filled in. */
    readonly spec: Readonly<Document>,
    /** Equal for collations that compare alike: whether an index serves a query, plan cache keys. */
    readonly key: string,
    readonly compare: StringComparator,
  ) {}
}

/**
 * The ICU version mongod reports in a collation's `version` (and requires of one given): the
 * engine answers for mongod, whose collations all carry it. Its comparisons use Node's own ICU
 * (`process.versions.icu`); no index stores collation keys, so no stored data depends on it.
 */
const MONGOD_ICU_VERSION = '57.1';

const ENUMS: Record<string, readonly string[]> = {
  caseFirst: ['upper', 'lower', 'off'],
  alternate: ['non-ignorable', 'shifted'],
  maxVariable: ['punct', 'space'],
};

/** The fields of mongod's IDL `Collation` struct and their types (strict: no other field). */
const FIELD_TYPES: Record<string, 'string' | 'bool' | 'number'> = {
  locale: 'string',
  caseLevel: 'bool',
  caseFirst: 'string',
  strength: 'number',
  numericOrdering: 'bool',
  alternate: 'string',
  maxVariable: 'string',
  normalization: 'bool',
  backwards: 'bool',
  version: 'string',
};

/** The collation document's fields checked as mongod's IDL parser checks them, in document order. */
function checkFields(doc: Document): void {
  for (const [field, value] of Object.entries(doc)) {
    const type = FIELD_TYPES[field];
    if (type === undefined) {
      throw new CommandError(ErrorCode.Location40415, `BSON field 'collation.${field}' is an unknown field.`);
    }
    const ok =
      type === 'number'
        ? numericKind(value) !== undefined
        : type === 'bool'
          ? typeof value === 'boolean'
          : typeof value === 'string';
    if (!ok) {
      const expected = type === 'number' ? "types '[long, int, decimal, double]'" : `type '${type}'`;
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'collation.${field}' is the wrong type '${typeName(value)}', expected ${expected}`,
      );
    }
    const allowed = ENUMS[field];
    if (allowed && !allowed.includes(value as string)) {
      throw new CommandError(
        ErrorCode.BadValue,
        `Enumeration value '${String(value)}' for field 'collation.${field}' is not a valid value.`,
      );
    }
    if (field === 'strength') {
      const strength = Math.trunc(toDouble(value) ?? 0);
      // The IDL validator { gte: 0, lte: 5 }; 0 passes it and is refused as no strength below.
      if (strength < 0 || strength > 5) {
        throw new CommandError(
          ErrorCode.Location51024,
          `BSON field 'strength' value must be ${strength < 0 ? '>= 0' : '<= 5'}, actual value '${strength}'`,
        );
      }
    }
  }
  if (doc.locale === undefined) {
    throw new CommandError(
      ErrorCode.Location40414,
      "BSON field 'collation.locale' is missing but a required field",
    );
  }
}

/** ICU's `@collation=` keyword values whose BCP 47 (`-u-co-`) spelling differs. */
const COLLATION_TYPE_TAGS: Record<string, string> = {
  phonebook: 'phonebk',
  traditional: 'trad',
  gb2312han: 'gb2312',
  dictionary: 'dict',
};

/** Collation variants mongod offers that V8's ICU data leaves out (Intl.supportedValuesOf('collation')). */
const VARIANTS_INTL_LACKS = new Set(['big5han', 'gb2312han']);

/** An ICU locale ID as mongod takes it: `en`, `en_US`, `zh_Hant`, `en_US_POSIX`, `de@collation=phonebook`. */
const ICU_LOCALE_ID =
  /^([a-z]{2,3})(?:_([A-Z][a-z]{3}))?(?:_([A-Z]{2}|\d{3}))?(?:_([A-Z0-9]{4,8}))?(?:@collation=([a-z0-9]+))?$/;

/** How Intl.Collator names an ICU locale: a BCP 47 tag, and `usage` for the `search` collation. */
interface IntlLocale {
  tag: string;
  usage: 'sort' | 'search';
}

function notOffered(what: string, doc: Document): CommandError {
  return new CommandError(
    ErrorCode.NotImplemented,
    `${what} is not supported by the embedded engine (Intl.Collator offers no such setting) in: ${formatValue(doc)}`,
  );
}

/** The Intl form of an ICU locale ID; undefined when ICU has no such collation (an invalid locale). */
function intlLocale(locale: string, doc: Document): IntlLocale | undefined {
  if (locale === 'root') return { tag: 'und', usage: 'sort' };
  const m = ICU_LOCALE_ID.exec(locale);
  if (!m) return undefined;
  const [, language, script, region, variant, type] = m;
  const base = [language, script, region, variant?.toLowerCase()].filter(Boolean).join('-');
  if (Intl.Collator.supportedLocalesOf([base]).length === 0) return undefined;
  if (type === undefined) return { tag: base, usage: 'sort' };
  // ECMA-402 reaches a locale's search collation through `usage`, never through `-u-co-search`.
  if (type === 'search') return { tag: base, usage: 'search' };
  if (VARIANTS_INTL_LACKS.has(type)) throw notOffered(`the collation variant '@collation=${type}'`, doc);
  const co = COLLATION_TYPE_TAGS[type] ?? type;
  const tag = `${base}-u-co-${co}`;
  // Intl drops from the locale a collation the locale does not have: nor has ICU then.
  return new Intl.Collator(tag).resolvedOptions().locale.endsWith(`-u-co-${co}`)
    ? { tag, usage: 'sort' }
    : undefined;
}

/** What mongod suggests for a locale ICU would have canonicalised (`en-US` → `en_US`). */
function suggestedLocale(locale: string, doc: Document): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(locale.replace(/_/g, '-'));
    const id = canonical?.replace(/-/g, '_');
    return id !== undefined && id !== locale && intlLocale(id, doc) !== undefined ? id : undefined;
  } catch {
    return undefined;
  }
}

const badValue = (message: string) => new CommandError(ErrorCode.BadValue, message);

/** A locale's own settings, as ICU's collator for it reports them. */
function localeDefaults({ tag, usage }: IntlLocale): {
  caseFirst: string;
  alternate: string;
  backwards: boolean;
} {
  const collator = new Intl.Collator(tag, { usage });
  const { caseFirst, ignorePunctuation } = collator.resolvedOptions();
  return {
    caseFirst: caseFirst === 'upper' || caseFirst === 'lower' ? caseFirst : 'off',
    alternate: ignorePunctuation ? 'shifted' : 'non-ignorable',
    // Intl does not report backwards secondary weighting (French accents, as fr_CA has it): asked
    // of ICU itself, it orders "côte" before "coté" (the last accent decides) only with it.
    backwards: collator.compare('coté', 'côte') > 0,
  };
}

/** Code point order (JS compares UTF-16 code units, which differ above U+FFFF). */
function compareCodePoints(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * Intl.Collator's options for a validated spec. Intl sets ICU's strength through `sensitivity`:
 * base = primary, accent = secondary, case = primary with the case level, variant = tertiary.
 * Strength 2 with caseLevel has no sensitivity of its own and takes variant (tertiary
 * differences other than case, such as full-width letters, then count too); quaternary (4) is
 * tertiary, as it is in ICU unless punctuation is shifted (refused at 4 and 5); identical (5) is
 * tertiary then the code points of the NFD forms (the identical level's definition).
 */
function comparatorFor({ tag, usage }: IntlLocale, spec: Document): StringComparator {
  const strength = spec.strength as number;
  const sensitivity =
    strength === 1
      ? spec.caseLevel
        ? 'case'
        : 'base'
      : strength === 2 && !spec.caseLevel
        ? 'accent'
        : 'variant';
  const collator = new Intl.Collator(tag, {
    usage,
    sensitivity,
    caseFirst: spec.caseFirst === 'off' ? 'false' : (spec.caseFirst as 'upper' | 'lower'),
    numeric: spec.numericOrdering === true,
    // Intl's ignorePunctuation is ICU's alternate handling "shifted".
    ignorePunctuation: spec.alternate === 'shifted',
  });
  const compare = collator.compare;
  if (strength < 5) return compare;
  return (a, b) => compare(a, b) || compareCodePoints(a.normalize('NFD'), b.normalize('NFD'));
}

/** Parses a non-empty collation document; undefined for `{ locale: "simple" }`. */
function buildCollation(doc: Document): Collation | undefined {
  checkFields(doc);
  const locale = doc.locale as string;
  if (locale.includes('\0')) {
    throw badValue(`Field 'locale' cannot contain null byte. Collation spec: ${formatValue(doc)}`);
  }
  if (locale === 'simple') return undefined;
  if (locale === '') throw badValue(`Field 'locale' cannot be the empty string in: ${formatValue(doc)}`);
  const intl = intlLocale(locale, doc);
  if (intl === undefined) {
    const suggestion = suggestedLocale(locale, doc);
    throw badValue(
      `Field 'locale' is invalid in: ${formatValue(doc)}${suggestion ? `. Did you mean '${suggestion}'?` : ''}`,
    );
  }
  const defaults = localeDefaults(intl);
  const strength = doc.strength === undefined ? 3 : Math.trunc(toDouble(doc.strength) ?? 3);
  if (strength === 0) {
    throw badValue("Enumeration value '0' for field 'collation.strength' is not a valid value.");
  }
  if (doc.version !== undefined && doc.version !== MONGOD_ICU_VERSION) {
    throw new CommandError(
      161, // IncompatibleCollationVersion
      `Requested collation version ${String(doc.version)} but the only available collator version was ${MONGOD_ICU_VERSION}. Requested collation spec: ${formatValue(doc)}`,
    );
  }
  const spec = {
    locale,
    caseLevel: doc.caseLevel ?? false,
    caseFirst: doc.caseFirst ?? defaults.caseFirst,
    strength,
    numericOrdering: doc.numericOrdering ?? false,
    alternate: doc.alternate ?? defaults.alternate,
    maxVariable: doc.maxVariable ?? 'punct',
    normalization: doc.normalization ?? false,
    backwards: doc.backwards ?? defaults.backwards,
    version: MONGOD_ICU_VERSION,
  };
  // mongod's checks of combinations that have no effect, on the settings with defaults filled in.
  if (spec.backwards && strength === 1) {
    throw badValue(`'backwards' is invalid with 'strength' of 1 in: ${formatValue(doc)}`);
  }
  if (spec.caseFirst !== 'off' && !spec.caseLevel && strength <= 2) {
    throw badValue(
      `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatValue(doc)}`,
    );
  }
  // What Intl.Collator has no option for (V8 drops ICU's -u-kb/-ka/-kv locale keywords).
  if (spec.backwards !== defaults.backwards) {
    throw notOffered(`'backwards' other than the locale's own (${defaults.backwards})`, doc);
  }
  if (spec.alternate === 'shifted' && strength >= 4) {
    throw notOffered("'alternate: \"shifted\"' with a 'strength' of 4 or 5 (a quaternary level)", doc);
  }
  if (spec.alternate === 'shifted' && spec.maxVariable === 'space') {
    throw notOffered('\'maxVariable: "space"\' with \'alternate: "shifted"\'', doc);
  }
  const { version: _version, ...compared } = spec;
  return new Collation(spec, JSON.stringify(compared), comparatorFor(intl, spec));
}

// Parsed collations by their document: a command's collation is parsed once per distinct spec, not
// once per command (building an ICU collator takes longer than many comparisons).
const parsed = new Map<string, Collation | undefined>();
const MAX_PARSED = 256;

/**
 * A collation document parsed and validated as mongod does; undefined for the simple collation
 * (`{ locale: "simple" }`). `{}` is no collation at all: see `effectiveCollation`.
 */
export function parseCollation(doc: Document): Collation | undefined {
  const cacheKey = keyString(doc);
  if (parsed.has(cacheKey)) return parsed.get(cacheKey);
  const collation = buildCollation(doc);
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(cacheKey, collation);
  return collation;
}

/**
 * The collation an operation runs with: its own `collation` when it names one, else its
 * collection's default (`create`'s `collation`). mongod reads an empty document as none given.
 */
export function effectiveCollation(
  requested: Document | undefined,
  collectionDefault: Collation | undefined,
): Collation | undefined {
  if (requested === undefined || Object.keys(requested).length === 0) return collectionDefault;
  return parseCollation(requested);
}

/** Whether two collations compare alike (undefined: simple). */
export function sameCollation(a: Collation | undefined, b: Collation | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.key === b.key);
}

/**
 * Hash keys for values under a collation, for what groups values (distinct, `$group`, `$lookup`):
 * values equal under it get one key. Each string stands for the first string of its class seen,
 * kept in a list sorted by the collation and found by binary search (Intl offers no sort keys to
 * hash), so a keyer belongs to one operation.
 */
export function collationKeyer(collation: Collation): (value: unknown) => string {
  const representatives: string[] = [];
  const representativeOf = (s: string): string => {
    let lo = 0;
    let hi = representatives.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = collation.compare(representatives[mid]!, s);
      if (c === 0) return representatives[mid]!;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    representatives.splice(lo, 0, s);
    return s;
  };
  const canonical = (value: unknown): unknown => {
    if (typeof value === 'string') return representativeOf(value);
    if (Array.isArray(value)) return value.map(canonical);
    if (!isPlainObject(value)) return value;
    const out: Document = {};
    for (const [k, v] of Object.entries(value)) out[k] = canonical(v);
    return out;
  };
  return (value) => keyString(canonical(value));
}
