/**
 * The query language of GET /api/posts?q=, text to tree (the first step of issue 21's search
 * module: parse -> plan -> execute). `cat -dog (sky or sea) rating:safe order:likes`: terms are
 * ANDed (`and` may be written), `or` and `|` are OR and bind looser than AND, parentheses group,
 * `-` negates, `~a ~b c` is `(a or b) c`. A term is a tag, a tag wildcard (`blue_*`) or a
 * metatag `name:value` (value quotable with `"`). Every node keeps the character offset where it
 * starts, so an error can point at it. What a metatag's value means is checked later.
 */

import { AppError } from '../core/errors.ts';

export type Node =
  | { kind: 'tag'; name: string; position: number }
  | { kind: 'wildcard'; pattern: string; position: number }
  | { kind: 'meta'; name: string; value: string; position: number }
  | { kind: 'not'; node: Node; position: number }
  | { kind: 'and'; nodes: Node[]; position: number }
  | { kind: 'or'; nodes: Node[]; position: number };

export interface Parsed {
  /** null for an empty query (every post). */
  tree: Node | null;
  order: { value: string; position: number } | null;
}

export interface Limits {
  maxLength: number;
  maxTerms: number;
  maxDepth: number;
}

export const DEFAULT_LIMITS: Limits = { maxLength: 1000, maxTerms: 20, maxDepth: 10 };

/** A search that cannot be read: a 400 naming `q` and the character where the trouble is. */
export class QueryError extends AppError {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(400, `q: ${reason} (at character ${position})`, { details: [{ field: 'q', message: reason, position }] });
  }
}

type Token = { type: 'open' | 'close' | 'or' | 'and' | 'not' | 'tilde'; position: number } | { type: 'term'; text: string; position: number; quoted: boolean };

/** A metatag's name: letters, digits (not first) and underscores before the first colon. */
const META = /^([a-z_][a-z0-9_]*):(.*)$/is;

/** Splits the text into tokens; parentheses inside a term (`foo_(bar)`) stay part of it. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    const start = i;
    let word = '';
    let quoted = false;
    // A word runs to the next space outside quotes.
    while (i < text.length && !/\s/.test(text[i])) {
      if (text[i] === '"') {
        const end = text.indexOf('"', i + 1);
        if (end < 0) throw new QueryError('a quote is not closed', i);
        word += text.slice(i, end + 1);
        quoted = true;
        i = end + 1;
      } else word += text[i++];
    }
    tokens.push(...split(word, start, quoted));
  }
  return tokens;
}

/** One space-separated word as tokens: leading `-`, `~` and `(`, the term, trailing `)`. */
function split(word: string, start: number, quoted: boolean): Token[] {
  const lower = word.toLowerCase();
  if (lower === 'or' || word === '|') return [{ type: 'or', position: start }];
  if (lower === 'and') return [{ type: 'and', position: start }];
  const head: Token[] = [];
  let at = 0;
  while (at < word.length && '-~('.includes(word[at])) {
    const c = word[at];
    head.push({ type: c === '-' ? 'not' : c === '~' ? 'tilde' : 'open', position: start + at });
    at++;
  }
  let body = word.slice(at);
  const tail: Token[] = [];
  // A closing parenthesis ends a group only when the term itself has no open one left for it
  // (those inside a quoted value are the value's).
  while (body.endsWith(')') && count(unquoted(body), ')') > count(unquoted(body), '(')) {
    tail.unshift({ type: 'close', position: start + at + body.length - 1 });
    body = body.slice(0, -1);
  }
  if (body === '' && quoted) throw new QueryError('an empty term', start);
  const term: Token[] = body === '' ? [] : [{ type: 'term', text: body, position: start + at, quoted }];
  return [...head, ...term, ...tail];
}

const count = (text: string, c: string) => text.split(c).length - 1;
/** The text without its quoted parts. */
const unquoted = (text: string) => text.replace(/"[^"]*"/g, '');

function unquote(value: string): string {
  return value.replace(/"([^"]*)"/g, '$1');
}

/** A term's node: a metatag, a wildcard or a tag (named as uploads name them). */
function termNode(t: Extract<Token, { type: 'term' }>): Node {
  const meta = META.exec(t.text);
  if (meta) return { kind: 'meta', name: meta[1].toLowerCase(), value: unquote(meta[2]), position: t.position };
  if (t.quoted) throw new QueryError('quotes are for metatag values (name:"some value")', t.position);
  const name = t.text.toLowerCase();
  if (name.includes('*')) return { kind: 'wildcard', pattern: name, position: t.position };
  return { kind: 'tag', name, position: t.position };
}

class Parser {
  private at = 0;
  private terms = 0;
  order: Parsed['order'] = null;

  constructor(
    private readonly tokens: Token[],
    private readonly limits: Limits,
    private readonly end: number,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  parse(): Node | null {
    const tree = this.or(0, true);
    const rest = this.peek();
    if (rest) throw new QueryError(rest.type === 'close' ? 'a closing parenthesis without an opening one' : 'unexpected text', rest.position);
    return tree;
  }

  /**
   * `a or b or c`; null when the query (or a group) holds nothing but `order:`. At the top,
   * `order:` may stand beside the terms of any branch (`a or b order:likes` orders the whole
   * query), but not be a branch of its own.
   */
  private or(depth: number, top: boolean): Node | null {
    const first = this.and(depth, top);
    const nodes = first ? [first] : [];
    while (this.peek()?.type === 'or') {
      const or = this.peek()!;
      const orderBefore = this.orderAt;
      this.at++;
      const next = this.and(depth, top);
      if (!next || nodes.length === 0) {
        const alone = nodes.length === 0 ? orderBefore : next ? null : this.orderAt;
        throw alone !== null ? new QueryError('order: cannot be a branch of an OR', alone) : new QueryError("'or' needs a term on each side", or.position);
      }
      nodes.push(next);
    }
    return nodes.length === 0 ? null : nodes.length === 1 ? nodes[0] : { kind: 'or', nodes, position: nodes[0].position };
  }

  /** Where `order:` was met, so an OR found after it can refuse it. */
  private orderAt: number | null = null;

  /** Terms side by side (or joined by `and`); `~` terms among them form one OR. */
  private and(depth: number, top: boolean): Node | null {
    const nodes: Node[] = [];
    const tilde: Node[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || t.type === 'or' || t.type === 'close') break;
      if (t.type === 'and') {
        if (nodes.length + tilde.length === 0) throw new QueryError("'and' needs a term on each side", t.position);
        this.at++;
        const after = this.peek();
        if (!after || after.type === 'or' || after.type === 'close' || after.type === 'and')
          throw new QueryError("'and' needs a term on each side", t.position);
        continue;
      }
      if (t.type === 'tilde') {
        this.at++;
        const node = this.unary(depth, false);
        if (node) tilde.push(node);
        continue;
      }
      const node = this.unary(depth, top);
      if (node) nodes.push(node);
    }
    if (tilde.length === 1) nodes.push(tilde[0]);
    if (tilde.length > 1) nodes.push({ kind: 'or', nodes: tilde, position: tilde[0].position });
    return nodes.length === 0 ? null : nodes.length === 1 ? nodes[0] : { kind: 'and', nodes, position: nodes[0].position };
  }

  private unary(depth: number, top: boolean): Node | null {
    const t = this.peek();
    if (!t) throw new QueryError('a term is missing at the end', this.end);
    if (t.type === 'not') {
      this.at++;
      const next = this.peek();
      if (!next || next.type === 'or' || next.type === 'and' || next.type === 'close') throw new QueryError("'-' needs a term after it", t.position);
      const node = this.unary(depth, false);
      if (!node) throw new QueryError("'-' needs a term after it", t.position);
      return { kind: 'not', node, position: t.position };
    }
    if (t.type === 'open') {
      if (depth + 1 > this.limits.maxDepth) throw new QueryError(`parentheses may nest at most ${this.limits.maxDepth} deep`, t.position);
      this.at++;
      const inner = this.or(depth + 1, false);
      const close = this.peek();
      if (close?.type !== 'close') throw new QueryError('a parenthesis is not closed', t.position);
      this.at++;
      if (!inner) throw new QueryError('empty parentheses', t.position);
      return inner;
    }
    if (t.type !== 'term') throw new QueryError(t.type === 'close' ? 'a closing parenthesis without an opening one' : 'a term is missing here', t.position);
    this.at++;
    const node = termNode(t);
    if (node.kind === 'meta' && node.name === 'order') {
      if (!top) throw new QueryError('order: cannot be negated, or be inside OR or parentheses', t.position);
      if (this.order) throw new QueryError('order: may be given once', t.position);
      this.order = { value: node.value.toLowerCase(), position: t.position };
      this.orderAt = t.position;
      return null;
    }
    if (++this.terms > this.limits.maxTerms) throw new QueryError(`at most ${this.limits.maxTerms} terms`, t.position);
    return node;
  }
}

/** Parses `q`; a syntax error or a limit passed throws QueryError with the character offset. */
export function parseQuery(text: string, limits: Limits = DEFAULT_LIMITS): Parsed {
  if (text.length > limits.maxLength) throw new QueryError(`the query is longer than ${limits.maxLength} characters`, limits.maxLength);
  const parser = new Parser(tokenize(text), limits, text.length);
  const tree = parser.parse();
  return { tree, order: parser.order };
}
