// mongod's regular expressions are PCRE2 (UTF mode, newline LF); the engine matches with
// JavaScript's RegExp. This module translates a PCRE pattern and its option letters into an
// equivalent JavaScript RegExp (`u` flag) where a faithful translation exists, and refuses the
// rest with mongod's "invalid regex" error rather than matching differently. The README lists what
// is translated and what is refused. Nothing here relies on RegExp features newer than Node 20's
// V8 (no `(?i:...)` modifiers, no `v` flag), so Node 20 and Node 24 answer alike.
import type { BSONRegExp } from 'bson';
import { CommandError } from './errors.js';

/** mongod's option letters: `u` (UTF) is always on there, so it changes nothing. */
const OPTION_LETTERS = new Set(['i', 'm', 's', 'x', 'u']);

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

type Node =
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; branches: Node[] }
  | { t: 'group'; kind: GroupKind; name?: string; body: Node; index?: number }
  | { t: 'quant'; atom: Node; q: string; lazy: boolean; possessive: boolean }
  | { t: 'js'; js: string; quantifiable: boolean }
  | { t: 'backref'; ref: number | string };

type GroupKind = 'capture' | 'plain' | 'ahead' | 'notAhead' | 'behind' | 'notBehind' | 'atomic';

/** A pattern mongod accepts or rejects but the engine cannot translate faithfully, or invalid. */
class PatternError extends Error {}

// PCRE2's \h and \v (horizontal and vertical white space), as class members.
const HORIZONTAL = '\\t \\u00a0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000';
const VERTICAL = '\\n\\u000b\\f\\r\\u0085\\u2028\\u2029';
// PCRE's \s without Unicode properties is ASCII white space; JavaScript's \s also has these:
const JS_ONLY_SPACES = '\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const PCRE_SPACES = '\\t\\n\\u000b\\f\\r ';

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  ascii: '\\u0000-\\u007f',
  blank: ' \\t',
  cntrl: '\\u0000-\\u001f\\u007f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: PCRE_SPACES,
  upper: 'A-Z',
  word: 'A-Za-z0-9_',
  xdigit: '0-9A-Fa-f',
};

const SYNTAX_CHARS = new Set([...'^$\\.*+?()[]{}|/']);

/** A code point as JavaScript (u flag) reads it literally, outside or inside a class. */
function literal(cp: number, inClass = false): string {
  const c = String.fromCodePoint(cp);
  if (cp < 0x20 || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff)) return `\\u{${cp.toString(16)}}`;
  if (inClass) return '\\]^-['.includes(c) ? `\\${c}` : c;
  return SYNTAX_CHARS.has(c) ? `\\${c}` : c;
}

function refuse(what: string): never {
  throw new PatternError(`${what} is not supported by the embedded engine`);
}

/** `\p{...}` in JavaScript's spelling: general categories as they are, scripts as `Script=`. */
function unicodeProperty(name: string, negated: boolean): string {
  let positive = !negated;
  let n = name;
  if (n.startsWith('^')) {
    positive = !positive;
    n = n.slice(1);
  }
  if (n === 'L&') n = 'LC';
  if (n === 'Any') return positive ? '\\s\\S' : refuse('\\P{Any}');
  const letter = positive ? 'p' : 'P';
  for (const candidate of [n, `Script=${n}`]) {
    try {
      new RegExp(`\\p{${candidate}}`, 'u');
      return `\\${letter}{${candidate}}`;
    } catch {
      // not this spelling
    }
  }
  throw new PatternError(`unknown property name after \\P or \\p: ${n}`);
}

class Parser {
  private pos = 0;
  captureCount = 0;
  readonly names: string[] = [];

  constructor(
    private readonly src: string,
    private readonly flags: Flags,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw new PatternError('unmatched closing parenthesis');
    return node;
  }

  private peek(offset = 0): string {
    return this.src[this.pos + offset] ?? '';
  }

  private startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  private codePoint(): number {
    const cp = this.src.codePointAt(this.pos);
    if (cp === undefined) throw new PatternError('unexpected end of pattern');
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /** In extended mode, white space and `#` comments outside classes are not part of the pattern. */
  private skipExtended(): void {
    if (!this.flags.x) return;
    for (;;) {
      const c = this.peek();
      if (c === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.src.length : end + 1;
      } else if (c !== '' && ' \t\n\r\f\u000b'.includes(c)) this.pos++;
      else return;
    }
  }

  private alternation(): Node {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.pos++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? branches[0]! : { t: 'alt', branches };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (;;) {
      this.skipExtended();
      const c = this.peek();
      if (c === '' || c === '|' || c === ')') break;
      const atom = this.atom();
      if (atom) items.push(this.quantified(atom));
    }
    return { t: 'seq', items };
  }

  /** `{n}`, `{n,}`, `{n,m}` at the position, or undefined (PCRE then reads `{` literally). */
  private braceQuantifier(): string | undefined {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
    if (!m) return undefined;
    if (m[3] && Number(m[3]) < Number(m[1])) throw new PatternError('numbers out of order in {} quantifier');
    return m[0];
  }

  private quantified(atom: Node): Node {
    this.skipExtended();
    let q: string | undefined;
    const c = this.peek();
    if (c === '*' || c === '+' || c === '?') q = c;
    else if (c === '{') q = this.braceQuantifier();
    if (q === undefined) return atom;
    if (atom.t === 'js' && !atom.quantifiable) {
      throw new PatternError('quantifier does not follow a repeatable item');
    }
    this.pos += q.length;
    let lazy = false;
    let possessive = false;
    if (this.peek() === '?') {
      lazy = true;
      this.pos++;
    } else if (this.peek() === '+') {
      possessive = true;
      this.pos++;
    }
    return this.quantified({ t: 'quant', atom, q, lazy, possessive });
  }

  private atom(): Node | undefined {
    const c = this.peek();
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return { t: 'js', js: this.characterClass(), quantifiable: true };
      case '\\':
        return this.escape();
      case '.':
        this.pos++;
        return { t: 'js', js: this.flags.s ? '[\\s\\S]' : '[^\\n]', quantifiable: true };
      case '^':
        this.pos++;
        // PCRE's multiline ^ is not after a newline that ends the subject.
        return { t: 'js', js: this.flags.m ? '(?:^|(?<=\\n)(?=[\\s\\S]))' : '^', quantifiable: false };
      case '$':
        this.pos++;
        // PCRE's $ also matches before a newline that ends the subject.
        return {
          t: 'js',
          js: this.flags.m ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))',
          quantifiable: false,
        };
      case '*':
      case '+':
      case '?':
        throw new PatternError('quantifier does not follow a repeatable item');
      case '{':
        if (this.braceQuantifier()) throw new PatternError('quantifier does not follow a repeatable item');
        this.pos++;
        return { t: 'js', js: '\\{', quantifiable: true };
      default:
        return { t: 'js', js: literal(this.codePoint()), quantifiable: true };
    }
  }

  private groupBody(kind: GroupKind, name?: string): Node {
    const index = kind === 'capture' ? ++this.captureCount : undefined;
    if (name !== undefined) {
      if (this.names.includes(name)) throw new PatternError('two named subpatterns have the same name');
      this.names.push(name);
    }
    const body = this.alternation();
    if (this.peek() !== ')') throw new PatternError('missing closing parenthesis');
    this.pos++;
    return { t: 'group', kind, name, body, index };
  }

  private groupName(open: string, close: string): string {
    this.pos += open.length;
    const end = this.src.indexOf(close, this.pos);
    const name = end === -1 ? '' : this.src.slice(this.pos, end);
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(name)) throw new PatternError('invalid group name');
    this.pos = end + close.length;
    return name;
  }

  private group(): Node | undefined {
    if (this.startsWith('(*')) refuse('a backtracking control verb (*...)');
    if (!this.startsWith('(?')) {
      this.pos++;
      return this.groupBody('capture');
    }
    const simple: Array<[string, GroupKind]> = [
      ['(?:', 'plain'],
      ['(?=', 'ahead'],
      ['(?!', 'notAhead'],
      ['(?<=', 'behind'],
      ['(?<!', 'notBehind'],
      ['(?>', 'atomic'],
    ];
    for (const [open, kind] of simple) {
      if (this.startsWith(open)) {
        this.pos += open.length;
        return this.groupBody(kind);
      }
    }
    if (this.startsWith('(?#')) {
      const end = this.src.indexOf(')', this.pos);
      if (end === -1) throw new PatternError('missing ) after (?# comment');
      this.pos = end + 1;
      return undefined;
    }
    if (this.startsWith('(?P<')) return this.groupBody('capture', this.groupName('(?P<', '>'));
    if (this.startsWith('(?<')) return this.groupBody('capture', this.groupName('(?<', '>'));
    if (this.startsWith("(?'")) return this.groupBody('capture', this.groupName("(?'", "'"));
    if (this.startsWith('(?P=')) {
      const name = this.groupName('(?P=', ')');
      return { t: 'backref', ref: name };
    }
    const flags = /^\(\?([imsxnU^J]*)(?:-([imsxnUJ]*))?([:)])/.exec(this.src.slice(this.pos));
    if (flags) {
      this.pos += flags[0].length;
      if (!this.changesNothing(flags[1] ?? '', flags[2] ?? '')) {
        refuse(`an option setting that changes part of the pattern (${flags[0]})`);
      }
      return flags[3] === ':' ? this.groupBody('plain') : undefined;
    }
    if (this.startsWith('(?|')) refuse('a branch reset group (?|...)');
    if (this.startsWith('(?(')) refuse('a conditional group (?(...)...)');
    if (this.startsWith('(?C')) refuse('a callout (?C...)');
    if (/^\(\?(R|[+-]?\d|&|P>)/.test(this.src.slice(this.pos))) refuse('a subroutine call or recursion');
    throw new PatternError('unrecognized character after (? or (?-');
  }

  /** Whether an option setting inside the pattern sets only what is already set. */
  private changesNothing(on: string, off: string): boolean {
    const state = this.flags as unknown as Record<string, boolean>;
    if (on.includes('^')) return false;
    for (const f of on) if (!state[f]) return false;
    for (const f of off) if (state[f] !== false) return false;
    return true;
  }

  /** The name or number a `\k` or `\g` reference names. */
  private reference(kind: 'k' | 'g'): Node {
    const rest = this.src.slice(this.pos);
    const m =
      /^\{(-?\d+|[A-Za-z_]\w*)\}/.exec(rest) ??
      (kind === 'k'
        ? (/^<([A-Za-z_]\w*)>/.exec(rest) ?? /^'([A-Za-z_]\w*)'/.exec(rest))
        : /^(-?\d+)/.exec(rest));
    if (!m) {
      if (kind === 'g' && /^[<']/.test(rest)) refuse('a subroutine call \\g<...>');
      throw new PatternError(`\\${kind} is not followed by a group name or number`);
    }
    this.pos += m[0].length;
    const ref = m[1]!;
    if (kind === 'k' || !/^-?\d+$/.test(ref)) return { t: 'backref', ref };
    const n = Number(ref);
    const absolute = n < 0 ? this.captureCount + 1 + n : n;
    if (absolute <= 0) throw new PatternError('reference to non-existent subpattern');
    return { t: 'backref', ref: absolute };
  }

  /** A character given by an escape (`\x..`, `\o{..}`, `\0..`, `\c.`, `\e`...), or undefined. */
  private characterEscape(c: string): number | undefined {
    const simple: Record<string, number> = { a: 7, e: 0x1b, f: 0xc, n: 0xa, r: 0xd, t: 9 };
    if (c in simple) return simple[c];
    const rest = this.src.slice(this.pos);
    let m: RegExpExecArray | null;
    if (c === 'x') {
      m = /^\{([0-9A-Fa-f]+)\}/.exec(rest) ?? /^([0-9A-Fa-f]{0,2})/.exec(rest);
      this.pos += m![0].length;
      const cp = m![1] ? Number.parseInt(m![1], 16) : 0;
      if (cp > 0x10ffff) throw new PatternError('character code point value in \\x{} is too large');
      return cp;
    }
    if (c === 'o') {
      m = /^\{([0-7]+)\}/.exec(rest);
      if (!m) throw new PatternError('missing opening brace after \\o');
      this.pos += m[0].length;
      return Number.parseInt(m[1]!, 8);
    }
    if (c === '0') {
      m = /^[0-7]{0,2}/.exec(rest);
      this.pos += m![0].length;
      return Number.parseInt(`0${m![0]}`, 8);
    }
    if (c === 'c') {
      const next = this.src.codePointAt(this.pos);
      if (next === undefined || next > 0x7e || next < 0x20)
        throw new PatternError('\\c must be followed by a printable ASCII character');
      this.pos++;
      return String.fromCodePoint(next).toUpperCase().codePointAt(0)! ^ 0x40;
    }
    return undefined;
  }

  /** `\Q...\E`: the characters up to `\E` (or the end), literally. */
  private quoted(inClass: boolean): string {
    const end = this.src.indexOf('\\E', this.pos);
    const text = this.src.slice(this.pos, end === -1 ? undefined : end);
    this.pos = end === -1 ? this.src.length : end + 2;
    return [...text].map((ch) => literal(ch.codePointAt(0)!, inClass)).join('');
  }

  private escape(): Node | undefined {
    this.pos++; // the backslash
    if (this.pos >= this.src.length) throw new PatternError('\\ at end of pattern');
    const c = this.peek();
    if (/[1-9]/.test(c)) {
      // PCRE: a back reference below 10 or to a group already opened, else an octal character.
      const digits = /^\d+/.exec(this.src.slice(this.pos))![0];
      const n = Number(digits);
      if (n < 10 || n <= this.captureCount) {
        this.pos += digits.length;
        return { t: 'backref', ref: n };
      }
      const octal = /^[0-7]{1,3}/.exec(digits);
      if (!octal) throw new PatternError('reference to non-existent subpattern');
      this.pos += octal[0].length;
      return { t: 'js', js: literal(Number.parseInt(octal[0], 8)), quantifiable: true };
    }
    this.pos++;
    const js = (text: string, quantifiable = true): Node => ({ t: 'js', js: text, quantifiable });
    const cp = this.characterEscape(c);
    if (cp !== undefined) return js(literal(cp));
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return js(`\\${c}`);
      case 'b':
      case 'B':
        return js(`\\${c}`, false);
      case 's':
        return js(`[${PCRE_SPACES}]`);
      case 'S':
        return js(`[^${PCRE_SPACES}]`);
      case 'h':
        return js(`[${HORIZONTAL}]`);
      case 'H':
        return js(`[^${HORIZONTAL}]`);
      case 'v':
        return js(`[${VERTICAL}]`);
      case 'V':
        return js(`[^${VERTICAL}]`);
      case 'N':
        return js('[^\\n]');
      case 'A':
        return js('(?<![\\s\\S])', false);
      case 'z':
        return js('(?![\\s\\S])', false);
      case 'Z':
        return js('(?=\\n?(?![\\s\\S]))', false);
      case 'Q': {
        const text = this.quoted(false);
        return text === '' ? undefined : js(`(?:${text})`);
      }
      case 'E':
        return undefined;
      case 'p':
      case 'P':
        return js(this.property(c === 'P'));
      case 'k':
      case 'g':
        return this.reference(c);
      case 'G':
      case 'K':
      case 'R':
      case 'X':
      case 'C':
        refuse(`\\${c}`);
    }
    if (/[A-Za-z0-9]/.test(c)) throw new PatternError('unrecognized character follows \\');
    this.pos--;
    return js(literal(this.codePoint()));
  }

  private property(negated: boolean): string {
    const m = /^\{([^}]*)\}/.exec(this.src.slice(this.pos)) ?? /^([A-Za-z])/.exec(this.src.slice(this.pos));
    if (!m) throw new PatternError('malformed \\P or \\p sequence');
    this.pos += m[0].length;
    return unicodeProperty(m[1]!, negated);
  }

  /** `[...]` as a JavaScript class (PCRE reads a `]` first in the class literally). */
  private characterClass(): string {
    this.pos++;
    let out = '[';
    if (this.peek() === '^') {
      out += '^';
      this.pos++;
    }
    let first = true;
    for (;;) {
      if (this.pos >= this.src.length) throw new PatternError('missing terminating ] for character class');
      const c = this.peek();
      if (c === ']' && !first) break;
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos));
      if (posix) {
        const members = POSIX_CLASSES[posix[2]!];
        if (!members) throw new PatternError('unknown POSIX class name');
        if (posix[1]) refuse('a negated POSIX class [:^...:]');
        out += members;
        this.pos += posix[0].length;
      } else if (c === '\\') out += this.classEscape();
      else out += literal(this.codePoint(), true);
    }
    this.pos++;
    return `${out}]`;
  }

  private classEscape(): string {
    this.pos++;
    if (this.pos >= this.src.length) throw new PatternError('\\ at end of pattern');
    const c = this.peek();
    this.pos++;
    const cp = c === 'b' ? 8 : this.characterEscape(c);
    if (cp !== undefined) return literal(cp, true);
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return `\\${c}`;
      case 's':
        return PCRE_SPACES;
      case 'S':
        // JavaScript's \S without the spaces only it counts: PCRE's \S.
        return `\\S${JS_ONLY_SPACES}`;
      case 'h':
        return HORIZONTAL;
      case 'v':
        return VERTICAL;
      case 'p':
      case 'P':
        return this.property(c === 'P');
      case 'Q':
        return this.quoted(true);
      case 'E':
        return '';
      case 'H':
      case 'V':
        refuse(`\\${c} inside a character class`);
    }
    if (/[A-Za-z0-9]/.test(c)) throw new PatternError('unrecognized character follows \\');
    this.pos--;
    return literal(this.codePoint(), true);
  }
}

/** Writes the parsed pattern as JavaScript, numbering groups (the emulations add some). */
class Emitter {
  private next = 0;
  private readonly jsIndex = new Map<number, number>();
  private readonly synthetic = new Map<Node, number>();

  constructor(
    root: Node,
    private readonly captureCount: number,
    private readonly names: string[],
  ) {
    this.number(root);
  }

  /** JavaScript's group numbers, in the order their opening parentheses come. */
  private number(node: Node): void {
    switch (node.t) {
      case 'seq':
        for (const item of node.items) this.number(item);
        return;
      case 'alt':
        for (const branch of node.branches) this.number(branch);
        return;
      case 'group':
        if (node.kind === 'atomic') this.synthetic.set(node, ++this.next);
        if (node.kind === 'capture') this.jsIndex.set(node.index!, ++this.next);
        this.number(node.body);
        return;
      case 'quant':
        if (node.possessive) this.synthetic.set(node, ++this.next);
        this.number(node.atom);
        return;
      default:
        return;
    }
  }

  /** The JavaScript group of each PCRE capture group, in order (for $regexFind's captures). */
  captureIndexes(): number[] {
    return Array.from({ length: this.captureCount }, (_, i) => this.jsIndex.get(i + 1)!);
  }

  emit(node: Node, behind = false): string {
    switch (node.t) {
      case 'seq':
        return node.items.map((item) => this.emit(item, behind)).join('');
      case 'alt':
        return node.branches.map((branch) => this.emit(branch, behind)).join('|');
      case 'js':
        return node.js;
      case 'backref': {
        if (typeof node.ref === 'string') {
          if (!this.names.includes(node.ref)) throw new PatternError('reference to non-existent subpattern');
          return `\\k<${node.ref}>`;
        }
        const index = this.jsIndex.get(node.ref);
        if (index === undefined) throw new PatternError('reference to non-existent subpattern');
        return `(?:\\${index})`;
      }
      case 'group': {
        const inner = (lookbehind: boolean) => this.emit(node.body, lookbehind);
        switch (node.kind) {
          case 'capture':
            return node.name ? `(?<${node.name}>${inner(behind)})` : `(${inner(behind)})`;
          case 'plain':
            return `(?:${inner(behind)})`;
          case 'ahead':
            return `(?=${inner(false)})`;
          case 'notAhead':
            return `(?!${inner(false)})`;
          case 'behind':
            return `(?<=${inner(true)})`;
          case 'notBehind':
            return `(?<!${inner(true)})`;
          case 'atomic':
            return this.atomic(node, inner(behind), behind);
        }
        break;
      }
      case 'quant': {
        const body = `${this.emit(node.atom, behind)}${node.q}${node.lazy ? '?' : ''}`;
        return node.possessive ? this.atomic(node, body, behind) : body;
      }
    }
    throw new Error('unreachable');
  }

  /**
   * An atomic group (or possessive quantifier): what a lookahead captured, matched again, cannot be
   * backtracked into. Inside a lookbehind JavaScript matches backwards, so it does not hold there.
   */
  private atomic(node: Node, body: string, behind: boolean): string {
    if (behind) refuse('an atomic group or possessive quantifier inside a lookbehind');
    const index = this.synthetic.get(node)!;
    return `(?:(?=(${body}))\\${index})`;
  }
}

export interface TranslatedPattern {
  source: string;
  flags: string;
  /** The JavaScript group number of each of the pattern's own capture groups. */
  captureIndexes: number[];
}

/** mongod's 51108 for an option letter PCRE does not have; `operator` prefixes it in expressions. */
export function checkRegexOptions(options: string, operator = ''): void {
  for (const letter of options) {
    if (!OPTION_LETTERS.has(letter)) {
      throw new CommandError(51108, `${operator} invalid flag in regex options: ${letter}`);
    }
  }
}

/**
 * The JavaScript equivalent of a PCRE pattern with mongod's option letters. Throws a PatternError
 * (message: why) for an invalid pattern or one that cannot be translated faithfully.
 */
function translate(pattern: string, options: string): TranslatedPattern {
  const flags: Flags = {
    i: options.includes('i'),
    m: options.includes('m'),
    s: options.includes('s'),
    x: options.includes('x'),
  };
  let body = pattern;
  // Option settings at the very start apply to the whole pattern, as flags would.
  for (
    let m = /^\(\?([imsx]*)(?:-([imsx]*))?\)/.exec(body);
    m;
    m = /^\(\?([imsx]*)(?:-([imsx]*))?\)/.exec(body)
  ) {
    for (const f of m[1] ?? '') flags[f as keyof Flags] = true;
    for (const f of m[2] ?? '') flags[f as keyof Flags] = false;
    body = body.slice(m[0].length);
  }
  const parser = new Parser(body, flags);
  const root = parser.parse();
  const emitter = new Emitter(root, parser.captureCount, parser.names);
  const source = emitter.emit(root);
  const jsFlags = flags.i ? 'iu' : 'u';
  try {
    new RegExp(source, jsFlags);
  } catch (err) {
    throw new PatternError(
      (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ''),
    );
  }
  return { source, flags: jsFlags, captureIndexes: emitter.captureIndexes() };
}

/** A RegExp that matches as mongod's PCRE pattern would, remembering the pattern's own groups. */
export class PcreRegExp extends RegExp {
  readonly captureIndexes: number[];

  constructor(translated: TranslatedPattern) {
    super(translated.source, translated.flags);
    this.captureIndexes = translated.captureIndexes;
  }

  // Built-ins that copy a RegExp (split, matchAll) make plain ones.
  static override get [Symbol.species](): RegExpConstructor {
    return RegExp;
  }
}

const cache = new Map<string, PcreRegExp | string>();
const CACHE_LIMIT = 1000;

/**
 * The compiled form of a regex: PcreRegExp, or the reason it is refused (cached both ways: a
 * `$regexMatch` evaluates its regex for every document).
 */
function compiled(pattern: string, options: string): PcreRegExp | string {
  const key = `${options}/${pattern}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    try {
      entry = new PcreRegExp(translate(pattern, options));
    } catch (err) {
      if (!(err instanceof PatternError)) throw err;
      entry = err.message;
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, entry);
  }
  return entry;
}

/**
 * A query's regex compiled, or mongod's errors: 51108 for an unknown option letter, BadValue for
 * a NUL, 51091 for an invalid pattern (and for one the engine cannot translate faithfully).
 */
export function compileQueryRegex(pattern: string, options: string): PcreRegExp {
  checkRegexOptions(options);
  if (pattern.includes('\0')) {
    throw new CommandError(2, 'Regular expression cannot contain an embedded null byte');
  }
  const result = compiled(pattern, options);
  if (typeof result === 'string') throw new CommandError(51091, `Regular expression is invalid: ${result}`);
  return result;
}

/** The same for `$regexMatch`, `$regexFind` and `$regexFindAll` (their codes are 51108 and 51111). */
export function compileExpressionRegex(pattern: string, options: string, operator: string): PcreRegExp {
  checkRegexOptions(options, operator);
  const result = compiled(pattern, options);
  if (typeof result === 'string') throw new CommandError(51111, `Invalid Regex in ${operator}: ${result}`);
  return result;
}

/** The pattern and option letters of a regex value (a JavaScript RegExp or a BSON regex). */
export function regexParts(value: RegExp | BSONRegExp): { pattern: string; options: string } {
  if (value instanceof RegExp) {
    // JavaScript's `m` and `s` flags are PCRE's; `g`, `y`, `u`, `d` change nothing for a match.
    return { pattern: value.source, options: value.flags.replace(/[^imsx]/g, '') };
  }
  return { pattern: value.pattern, options: value.options };
}

export function isBsonRegex(value: unknown): value is BSONRegExp {
  return (value as { _bsontype?: string } | null)?._bsontype === 'BSONRegExp';
}

/**
 * A BSON regex as documents keep it: a plain RegExp when JavaScript reads the pattern and options
 * as they are and gives them back unchanged (the common case, which the engine's code and mingo
 * know), else the BSON regex itself, so a stored `(?i)a`, `a++` or `x` regex is returned exactly as
 * it came. Queries compile either through compileQueryRegex.
 */
export function regexValue(value: BSONRegExp): RegExp | BSONRegExp {
  // bson writes a RegExp's i and m flags back, not s.
  if (!/^[im]*$/.test(value.options)) return value;
  try {
    const re = new RegExp(value.pattern, value.options);
    return re.source === value.pattern ? re : value;
  } catch {
    return value;
  }
}
