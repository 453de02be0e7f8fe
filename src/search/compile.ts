/**
 * Parse tree to Expr: tag names to ids (a wildcard to at most MAX_EXPANSION tags), user and pool
 * names to ids, metatag values to typed sets. The old list parameters compile into the same Expr,
 * ANDed with `q`. Errors are QueryErrors at the character offset of what is wrong.
 */
import type { Rating } from '../core/schemas.ts';
import { type Expr, type Interval, type MediaKind, type NumField, ORDERS, type OrderKey, type OrderName, type Wildcard } from './expr.ts';
import { type Node, QueryError, type Parsed } from './parse.ts';
import { didYouMean } from '../core/nearest.ts';
import { ageRange, bytes, dateSpan, decimal, integer, numberRange, parseRange, ValueError } from './values.ts';

/** A wildcard stands for at most this many tags (the most used). */
export const MAX_EXPANSION = 100;

/** What compiling looks up; each answers for what exists now. */
export interface NamedTag {
  id: number;
  moving?: number[];
}

/** The posts a tag name stands for. */
export const namedTagExpr = (tag: NamedTag | undefined): Expr => (tag ? { kind: 'tags', ids: tag.moving ? [tag.id, ...tag.moving] : [tag.id] } : NONE);

export interface Lookups {
  /**
   * The named tags that exist, with their ids; an alias name answers its target's id. `moving`:
   * tags whose posts the name stands for too (an alias's own tag while its posts move to the target).
   */
  tags(names: string[]): Promise<Map<string, NamedTag>>;
  /** Tags matching a pattern (`*` any run of characters), the most used first, at most `limit`. */
  wildcard(pattern: string, limit: number): Promise<{ id: number; name: string }[]>;
  /** A user's id by name (case-insensitive). */
  user(name: string): Promise<number | undefined>;
  /** A pool's id, from its public id. */
  pool(id: string): Promise<number | undefined>;
  /** The ids of the title words that contain `text`, or null when the words cannot stand for the titles (see titleLeaf). */
  titleWords?(text: string): Promise<number[] | null>;
}

/** A `title:` leaf (or an old `search` term's title side), with the words that contain its text when the board can say. */
export async function titleLeaf(text: string, lookups: Lookups): Promise<Expr> {
  const lower = text.toLowerCase();
  const words = (await lookups.titleWords?.(lower)) ?? null;
  return words ? { kind: 'title', text: lower, words } : { kind: 'title', text: lower };
}

const RATING_NAMES: Record<string, Rating> = { safe: 'safe', sketchy: 'sketchy', unsafe: 'unsafe', g: 'safe', s: 'safe', q: 'sketchy', e: 'unsafe' };
const TYPES: readonly MediaKind[] = ['image', 'video', 'gif'];

type NumberMeta = { field: NumField; parse: (value: string) => Interval[] };
const NUMBER_METAS: Record<string, NumberMeta> = {
  id: { field: 'id', parse: (v) => numberRange(v, integer, 'a post id') },
  likes: { field: 'likes', parse: (v) => numberRange(v, integer, 'a whole number') },
  // Danbooru's spelling: the board has likes, no down-votes, so a score is its likes.
  score: { field: 'likes', parse: (v) => numberRange(v, integer, 'a whole number') },
  favs: { field: 'favs', parse: (v) => numberRange(v, integer, 'a whole number') },
  favcount: { field: 'favs', parse: (v) => numberRange(v, integer, 'a whole number') },
  comments: { field: 'comments', parse: (v) => numberRange(v, integer, 'a whole number') },
  width: { field: 'width', parse: (v) => numberRange(v, integer, 'a number of pixels') },
  height: { field: 'height', parse: (v) => numberRange(v, integer, 'a number of pixels') },
  filesize: { field: 'filesize', parse: (v) => numberRange(v.toLowerCase(), bytes, 'a size in bytes, or with kb, mb or gb') },
  duration: { field: 'duration', parse: (v) => numberRange(v, decimal, 'a number of seconds') },
  tagcount: { field: 'tagcount', parse: (v) => numberRange(v, integer, 'a whole number') },
};

/** Every metatag name the language knows, for error messages and the web's autocomplete. */
export const METATAG_NAMES = [
  'rating',
  'user',
  'uploader',
  'fav',
  'pool',
  'ordpool',
  'parent',
  'title',
  ...Object.keys(NUMBER_METAS),
  'date',
  'age',
  'type',
  'sha256',
  'md5',
  'has',
  'order',
] as const;
const KNOWN = new Set<string>(METATAG_NAMES);

const HAS: Record<string, Expr> = {
  comments: { kind: 'num', field: 'comments', ranges: [{ lo: 1, hi: Infinity }] },
  likes: { kind: 'num', field: 'likes', ranges: [{ lo: 1, hi: Infinity }] },
  favs: { kind: 'num', field: 'favs', ranges: [{ lo: 1, hi: Infinity }] },
  pool: { kind: 'pooled' },
  parent: { kind: 'hasParent' },
  children: { kind: 'hasChildren' },
};

const NONE: Expr = { kind: 'none' };
const poolExpr = (id: number | undefined): Expr => (id === undefined ? NONE : { kind: 'pool', poolId: id });

/** The list of a comma-separated value, each item looked up in `known`; an unknown one is an error naming the choices. */
function choices<T>(value: string, known: Record<string, T>, what: string): T[] {
  const out: T[] = [];
  for (const item of value.toLowerCase().split(',')) {
    if (!(item in known)) throw new ValueError(`'${item}' is not a ${what}: expected ${Object.keys(known).join(', ')}${didYouMean(item, Object.keys(known))}`);
    if (!out.includes(known[item])) out.push(known[item]);
  }
  return out;
}

/** The tag names and wildcard patterns in a tree, to be looked up at once. */
function namesIn(node: Node | null, tags: Set<string>, wildcards: Node[]): void {
  if (!node) return;
  if (node.kind === 'tag') tags.add(node.name);
  else if (node.kind === 'meta' && !KNOWN.has(node.name)) tags.add(`${node.name}:${node.value.toLowerCase()}`);
  else if (node.kind === 'wildcard') wildcards.push(node);
  else if (node.kind === 'not') namesIn(node.node, tags, wildcards);
  else if (node.kind === 'and' || node.kind === 'or') for (const n of node.nodes) namesIn(n, tags, wildcards);
}

export interface CompileOptions {
  now: number;
}

/** Compiles a parsed query's tree (order and cursor are the caller's: see compileQuery). */
export async function compileTree(tree: Node | null, lookups: Lookups, o: CompileOptions): Promise<{ expr: Expr; wildcards: Wildcard[] }> {
  const tagNames = new Set<string>();
  const patterns: Node[] = [];
  namesIn(tree, tagNames, patterns);
  const [tags, expansions] = await Promise.all([
    lookups.tags([...tagNames]),
    Promise.all(patterns.map((p) => (p.kind === 'wildcard' ? lookups.wildcard(p.pattern, MAX_EXPANSION + 1) : []))),
  ]);
  const wildcards: Wildcard[] = [];
  const expanded = new Map<string, number[]>();
  patterns.forEach((p, i) => {
    if (p.kind !== 'wildcard' || expanded.has(p.pattern)) return;
    const found = expansions[i].slice(0, MAX_EXPANSION);
    expanded.set(
      p.pattern,
      found.map((t) => t.id),
    );
    wildcards.push({ pattern: p.pattern, tags: found.map((t) => t.name), capped: expansions[i].length > MAX_EXPANSION });
  });

  const users = new Map<string, Promise<number | undefined>>();
  const user = (name: string) => {
    const key = name.toLowerCase();
    if (!users.has(key)) users.set(key, lookups.user(name));
    return users.get(key)!;
  };

  const tagExpr = (name: string): Expr => namedTagExpr(tags.get(name));

  const meta = async (name: string, value: string, position: number): Promise<Expr> => {
    const at = position + name.length + 1;
    try {
      const numeric = NUMBER_METAS[name];
      if (numeric) return { kind: 'num', field: numeric.field, ranges: numeric.parse(value) };
      switch (name) {
        case 'rating':
          return { kind: 'rating', values: choices(value, RATING_NAMES, 'rating') };
        case 'type':
          return { kind: 'type', values: choices(value, Object.fromEntries(TYPES.map((t) => [t, t])), 'type') };
        case 'has':
          return value.toLowerCase() in HAS
            ? HAS[value.toLowerCase()]
            : fail(`'${value}' is not something has: knows: expected ${Object.keys(HAS).join(', ')}${didYouMean(value, Object.keys(HAS), 'has:')}`);
        case 'user':
        case 'uploader':
        case 'fav': {
          if (value === '') fail('a user name is missing');
          const id = await user(value);
          if (id === undefined) return NONE;
          return name === 'fav' ? { kind: 'fav', userId: id } : { kind: 'uploader', userId: id };
        }
        case 'ordpool':
          if (!/^\d{1,15}$/.test(value)) fail(`'${value}' is not a pool id`);
          return poolExpr(await lookups.pool(value));
        case 'pool': {
          const v = value.toLowerCase();
          if (v === 'any') return { kind: 'pooled' };
          if (v === 'none') return { kind: 'not', expr: { kind: 'pooled' } };
          if (v === '') fail('a pool id, any or none is missing');
          return poolExpr(await lookups.pool(value));
        }
        case 'parent': {
          const v = value.toLowerCase();
          if (v === 'any') return { kind: 'hasParent' };
          if (v === 'none') return { kind: 'not', expr: { kind: 'hasParent' } };
          if (!/^\d{1,15}$/.test(v)) fail(`'${value}' is not a post id, any or none`);
          return { kind: 'parent', postId: Number(v) };
        }
        case 'title':
          if (value === '') fail('the text to find in titles is missing');
          return titleLeaf(value, lookups);
        case 'sha256':
        case 'md5': {
          const hex = value.toLowerCase();
          const length = name === 'sha256' ? 64 : 32;
          if (!new RegExp(`^[0-9a-f]{${length}}$`).test(hex)) fail(`${name}: takes ${length} hexadecimal digits`);
          return { kind: 'hash', algo: name, hex };
        }
        case 'date':
          return {
            kind: 'num',
            field: 'created',
            ranges: parseRange(value.toLowerCase(), (t) => dateSpan(t, o.now), 'a date (YYYY-MM-DD, YYYY-MM, YYYY, today or yesterday)'),
          };
        case 'age':
          return { kind: 'num', field: 'created', ranges: ageRange(value.toLowerCase(), o.now) };
      }
    } catch (err) {
      if (err instanceof ValueError) throw new QueryError(`${name}: ${err.message}`, at);
      throw err;
    }
    // Not a metatag: a tag whose name has a colon (re:zero).
    return tagExpr(`${name}:${value.toLowerCase()}`);
  };

  const walk = async (node: Node): Promise<Expr> => {
    switch (node.kind) {
      case 'tag':
        return tagExpr(node.name);
      case 'wildcard': {
        const ids = expanded.get(node.pattern) ?? [];
        return ids.length ? { kind: 'tags', ids } : NONE;
      }
      case 'meta':
        return meta(node.name, node.value, node.position);
      case 'not':
        return { kind: 'not', expr: await walk(node.node) };
      case 'and':
        return { kind: 'and', exprs: await Promise.all(node.nodes.map(walk)) };
      case 'or':
        return { kind: 'or', exprs: await Promise.all(node.nodes.map(walk)) };
    }
  };
  return { expr: tree ? await walk(tree) : { kind: 'all' }, wildcards };
}

function fail(message: string): never {
  throw new ValueError(message);
}

/**
 * The keys of a query's order: its `order:` value (an unknown one is an error naming the
 * choices), or the pool's order when it has an `ordpool:ID` (which may not come with order:).
 */
export function orderOf(order: Parsed['order'], tree: Node | null = null): readonly OrderKey[] | null {
  const ordpool = topLevel(tree).find((n) => n.kind === 'meta' && n.name === 'ordpool');
  if (ordpool && order) throw new QueryError("ordpool: gives the pool's order; leave out order:, or use pool: with it", order.position);
  if (ordpool) return ORDERS.pool;
  if (!order) return null;
  const name = ORDER_ALIASES[order.value] ?? order.value;
  if (!(name in ORDERS)) {
    const choices = Object.keys(ORDERS);
    throw new QueryError(
      `order: '${order.value}' is not an order: expected ${choices.join(', ')}${didYouMean(order.value, [...choices, ...Object.keys(ORDER_ALIASES)], 'order:')}`,
      order.position + 'order:'.length,
    );
  }
  return ORDERS[name as OrderName];
}

/**
 * Danbooru's names of orders we have under others (docs/search.md): a score is likes here (the
 * board has no down-votes). Its `order:id` (lowest first) is not among them: ours is highest first.
 */
const ORDER_ALIASES: Record<string, OrderName> = { score: 'likes', score_asc: 'likes_asc', favcount: 'favs', id_desc: 'id' };

/** The nodes ANDed at the top of a tree (the tree itself when it is no AND). */
function topLevel(tree: Node | null): Node[] {
  if (!tree) return [];
  return tree.kind === 'and' ? tree.nodes : [tree];
}

/**
 * `order:pool` (or ordpool:) with the pool it orders by: the query's one pool:ID ANDed at its top.
 * A query that matches nothing (an unknown pool) needs no order.
 */
export function withPoolOrder(order: readonly OrderKey[], expr: Expr, at: number): readonly OrderKey[] {
  if (!order.some((k) => k.field === 'pool')) return order;
  const pools = (expr.kind === 'and' ? expr.exprs : [expr]).filter((e): e is Extract<Expr, { kind: 'pool' }> => e.kind === 'pool');
  if (pools.length === 0 && expr.kind === 'none') return ORDERS.id;
  if (pools.length !== 1) throw new QueryError('order:pool needs one pool:ID in the query, outside OR and negation', at);
  return order.map((k) => (k.field === 'pool' ? { ...k, poolId: pools[0].poolId } : k));
}
