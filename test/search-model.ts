/**
 * A model of the query language for property tests: random queries as data, their text, and a
 * plain evaluation over every post, written from docs/search.md and not from src/search, so the
 * two can disagree. Only order:random borrows the engine's rank function, which defines it.
 */
import fc from 'fast-check';
import { randomRank } from '../src/search/expr.ts';

export interface ModelPost {
  id: number;
  title: string;
  tags: string[];
  rating: 'safe' | 'sketchy' | 'unsafe';
  uploader: string;
  favBy: string[];
  pools: number[];
  likes: number;
  favs: number;
  comments: number;
  width: number;
  height: number;
  filesize: number;
  duration: number | null;
  mediaType: 'image' | 'video';
  animated: boolean;
  created: number;
  sha256: string;
  md5: string;
  /** The parent post's id, or null. */
  parent: number | null;
}

export interface World {
  posts: ModelPost[];
  tags: string[];
  users: string[];
  pools: number[];
  now: number;
}

type Cmp = '=' | '>' | '>=' | '<' | '<=';
/** A range as written: one value with a comparison, a span A..B (either side may be open), or a list. */
type Range<V> = { form: 'cmp'; cmp: Cmp; v: V } | { form: 'span'; a?: V; b?: V } | { form: 'list'; vs: V[] };

/** A date value: a day, month or year (UTC), or today/yesterday. */
type DateValue = { unit: 'day' | 'month' | 'year'; at: number } | { unit: 'today' | 'yesterday' };

export type Term =
  | { t: 'tag'; name: string }
  | { t: 'wild'; pattern: string }
  | { t: 'rating'; values: string[] }
  | { t: 'user' | 'fav'; name: string }
  | { t: 'pool'; value: string }
  | { t: 'title'; text: string }
  | { t: 'num'; field: 'id' | 'likes' | 'favs' | 'comments' | 'width' | 'height' | 'tagcount'; range: Range<number> }
  | { t: 'filesize'; range: Range<number>; kb: boolean }
  | { t: 'duration'; range: Range<number> }
  | { t: 'date'; range: Range<DateValue> }
  | { t: 'age'; range: Range<{ n: number; unit: 'h' | 'd' | 'w' | 'mo' | 'y' }> }
  | { t: 'type'; values: ('image' | 'video' | 'gif')[] }
  | { t: 'sha256' | 'md5'; hex: string }
  | { t: 'has'; what: 'comments' | 'likes' | 'favs' | 'pool' | 'parent' | 'children' }
  | { t: 'parent'; value: string };

export type Q = { k: 'term'; term: Term } | { k: 'not'; q: Q } | { k: 'and'; qs: Q[] } | { k: 'or'; qs: Q[] };

export const ORDER_NAMES = [
  'newest',
  'oldest',
  'id',
  'id_asc',
  'likes',
  'likes_asc',
  'favs',
  'comments',
  'filesize',
  'duration',
  'tagcount',
  'random',
] as const;
export type OrderName = (typeof ORDER_NAMES)[number];

const DAY = 86_400_000;

// ---- text ----

function rangeText<V>(r: Range<V>, show: (v: V) => string): string {
  if (r.form === 'cmp') return `${r.cmp === '=' ? '' : r.cmp}${show(r.v)}`;
  if (r.form === 'span') return `${r.a === undefined ? '' : show(r.a)}..${r.b === undefined ? '' : show(r.b)}`;
  return r.vs.map(show).join(',');
}

const pad = (n: number) => String(n).padStart(2, '0');
function dateText(d: DateValue): string {
  if (!('at' in d)) return d.unit;
  const t = new Date(d.at);
  if (d.unit === 'year') return `${t.getUTCFullYear()}`;
  if (d.unit === 'month') return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}`;
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

export function termText(term: Term): string {
  switch (term.t) {
    case 'tag':
      return term.name;
    case 'wild':
      return term.pattern;
    case 'rating':
      return `rating:${term.values.join(',')}`;
    case 'user':
    case 'fav':
      return `${term.t}:${term.name}`;
    case 'pool':
      return `pool:${term.value}`;
    case 'title':
      return term.text.includes(' ') ? `title:"${term.text}"` : `title:${term.text}`;
    case 'num':
      return `${term.field}:${rangeText(term.range, String)}`;
    case 'filesize':
      return `filesize:${rangeText(term.range, (v) => (term.kb ? `${v}kb` : String(v)))}`;
    case 'duration':
      return `duration:${rangeText(term.range, String)}`;
    case 'date':
      return `date:${rangeText(term.range, dateText)}`;
    case 'age':
      return `age:${rangeText(term.range, (v) => `${v.n}${v.unit}`)}`;
    case 'type':
      return `type:${term.values.join(',')}`;
    case 'sha256':
    case 'md5':
      return `${term.t}:${term.hex}`;
    case 'has':
      return `has:${term.what}`;
    case 'parent':
      return `parent:${term.value}`;
  }
}

/** The query as text; `style` picks among the equivalent spellings (and/space, or/|, ~). */
export function queryText(q: Q, style: number): string {
  const group = (x: Q) => (x.k === 'and' || x.k === 'or' ? `(${queryText(x, style)})` : queryText(x, style));
  switch (q.k) {
    case 'term':
      return termText(q.term);
    case 'not':
      return `-${group(q.q)}`;
    case 'and':
      return q.qs.map((x) => (x.k === 'or' ? `(${queryText(x, style)})` : queryText(x, style))).join(style % 3 === 0 ? ' and ' : ' ');
    case 'or':
      // ~a ~b: the old spelling of an OR of plain terms.
      if (style % 5 === 0 && q.qs.every((x) => x.k === 'term')) return q.qs.map((x) => `~${queryText(x, style)}`).join(' ');
      return q.qs.map((x) => (x.k === 'and' ? `(${queryText(x, style)})` : queryText(x, style))).join(style % 2 === 0 ? ' or ' : ' | ');
  }
}

// ---- evaluation ----

function inRange<V>(x: number | null, r: Range<V>, span: (v: V) => [number, number]): boolean {
  if (x === null) return false;
  if (r.form === 'list') return r.vs.some((v) => x >= span(v)[0] && x <= span(v)[1]);
  if (r.form === 'span') return (r.a === undefined || x >= span(r.a)[0]) && (r.b === undefined || x <= span(r.b)[1]);
  const [lo, hi] = span(r.v);
  switch (r.cmp) {
    case '=':
      return x >= lo && x <= hi;
    case '>':
      return x > hi;
    case '>=':
      return x >= lo;
    case '<':
      return x < lo;
    case '<=':
      return x <= hi;
  }
}

const point = (v: number): [number, number] => [v, v];

function dateSpan(d: DateValue, now: number): [number, number] {
  const today = now - (now % DAY);
  if (!('at' in d)) return d.unit === 'today' ? [today, today + DAY - 1] : [today - DAY, today - 1];
  const t = new Date(d.at);
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth();
  if (d.unit === 'year') return [Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1) - 1];
  if (d.unit === 'month') return [Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1) - 1];
  const start = Date.UTC(y, m, t.getUTCDate());
  return [start, start + DAY - 1];
}

const AGE_MS = { h: 3_600_000, d: DAY, w: 7 * DAY, mo: 30 * DAY, y: 365 * DAY };

function matchesTerm(p: ModelPost, term: Term, w: World): boolean {
  switch (term.t) {
    case 'tag':
      return p.tags.includes(term.name.toLowerCase());
    case 'wild': {
      const re = new RegExp(`^${term.pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      return p.tags.some((t) => re.test(t));
    }
    case 'rating': {
      const names: Record<string, string> = { g: 'safe', s: 'safe', q: 'sketchy', e: 'unsafe' };
      return term.values.map((v) => names[v] ?? v).includes(p.rating);
    }
    case 'user':
      return p.uploader.toLowerCase() === term.name.toLowerCase();
    case 'fav':
      return p.favBy.some((u) => u.toLowerCase() === term.name.toLowerCase());
    case 'pool':
      if (term.value === 'any') return p.pools.length > 0;
      if (term.value === 'none') return p.pools.length === 0;
      return p.pools.includes(Number(term.value));
    case 'title':
      return p.title.toLowerCase().includes(term.text.toLowerCase());
    case 'num': {
      const value = term.field === 'tagcount' ? p.tags.length : p[term.field];
      return inRange(value, term.range, point);
    }
    case 'filesize':
      return inRange(p.filesize, term.range, (v) => point(term.kb ? v * 1024 : v));
    case 'duration':
      return inRange(p.duration, term.range, point);
    case 'date':
      return inRange(p.created, term.range, (d) => dateSpan(d, w.now));
    case 'age': {
      // The age of a post, and `age:3d` alone means at most 3 days old.
      const age = w.now - p.created;
      const r = term.range.form === 'cmp' && term.range.cmp === '=' ? { ...term.range, cmp: '<=' as const } : term.range;
      return inRange(age, r, (v) => point(v.n * AGE_MS[v.unit]));
    }
    case 'type':
      return term.values.some((t) => (t === 'gif' ? p.mediaType === 'image' && p.animated : p.mediaType === t));
    case 'sha256':
      return p.sha256 === term.hex.toLowerCase();
    case 'md5':
      return p.md5 === term.hex.toLowerCase();
    case 'has':
      if (term.what === 'parent') return p.parent !== null;
      if (term.what === 'children') return w.posts.some((c) => c.parent === p.id);
      return term.what === 'pool' ? p.pools.length > 0 : p[term.what] > 0;
    case 'parent':
      // parent:ID is the posts whose parent is ID (not ID itself); any and none ask whether there is one.
      if (term.value === 'any') return p.parent !== null;
      if (term.value === 'none') return p.parent === null;
      return p.parent === Number(term.value);
  }
}

export function matches(p: ModelPost, q: Q, w: World): boolean {
  switch (q.k) {
    case 'term':
      return matchesTerm(p, q.term, w);
    case 'not':
      return !matches(p, q.q, w);
    case 'and':
      return q.qs.every((x) => matches(p, x, w));
    case 'or':
      return q.qs.some((x) => matches(p, x, w));
  }
}

type Key = (p: ModelPost) => number;
const ORDER_KEYS = (seed: number): Record<OrderName, [Key, 1 | -1][]> => ({
  newest: [
    [(p) => p.created, -1],
    [(p) => p.id, -1],
  ],
  oldest: [
    [(p) => p.created, 1],
    [(p) => p.id, 1],
  ],
  id: [[(p) => p.id, -1]],
  id_asc: [[(p) => p.id, 1]],
  likes: [
    [(p) => p.likes, -1],
    [(p) => p.id, -1],
  ],
  likes_asc: [
    [(p) => p.likes, 1],
    [(p) => p.id, -1],
  ],
  favs: [
    [(p) => p.favs, -1],
    [(p) => p.id, -1],
  ],
  comments: [
    [(p) => p.comments, -1],
    [(p) => p.id, -1],
  ],
  filesize: [
    [(p) => p.filesize, -1],
    [(p) => p.id, -1],
  ],
  // Posts without a duration come after every video.
  duration: [
    [(p) => p.duration ?? -1, -1],
    [(p) => p.id, -1],
  ],
  tagcount: [
    [(p) => p.tags.length, -1],
    [(p) => p.id, -1],
  ],
  random: [
    [(p) => randomRank(p.id, seed), 1],
    [(p) => p.id, -1],
  ],
});

/** The posts matching `q`, in the order, every one of them. */
export function evaluate(w: World, q: Q | null, order: OrderName, seed: number, extra: (p: ModelPost) => boolean = () => true): ModelPost[] {
  const keys = ORDER_KEYS(seed)[order];
  return w.posts
    .filter((p) => (q === null || matches(p, q, w)) && extra(p))
    .sort((a, b) => {
      for (const [key, dir] of keys) {
        const d = key(a) - key(b);
        if (d !== 0) return d * dir;
      }
      return 0;
    });
}

// ---- generation ----

const cmp = fc.constantFrom<Cmp>('=', '>', '>=', '<', '<=');
function range<V>(v: fc.Arbitrary<V>): fc.Arbitrary<Range<V>> {
  return fc.oneof(
    fc.record({ form: fc.constant('cmp' as const), cmp, v }),
    fc.record({ form: fc.constant('span' as const), a: v, b: v }),
    fc.record({ form: fc.constant('span' as const), a: v }),
    fc.record({ form: fc.constant('span' as const), b: v }),
    fc.record({ form: fc.constant('list' as const), vs: fc.array(v, { minLength: 2, maxLength: 3 }) }),
  );
}
/** A span whose start is after its end is a 400, not an empty result: such ranges are put in order. */
function ordered<V>(r: Range<V>, key: (v: V) => number): Range<V> {
  if (r.form === 'span' && r.a !== undefined && r.b !== undefined && key(r.a) > key(r.b)) return { form: 'span', a: r.b, b: r.a };
  return r;
}

export function termArb(w: World): fc.Arbitrary<Term> {
  const somePost = fc.constantFrom(...w.posts);
  const word = fc.constantFrom(...new Set(w.posts.flatMap((p) => p.title.split(' '))));
  const tagName = fc.oneof(fc.constantFrom(...w.tags), fc.constant('no_such_tag'));
  const first = w.posts.reduce((m, p) => Math.min(m, p.created), Infinity);
  const dateValue: fc.Arbitrary<DateValue> = fc.oneof(
    fc.record({ unit: fc.constantFrom('day' as const, 'month' as const, 'year' as const), at: fc.integer({ min: first - 30 * DAY, max: w.now }) }),
    fc.record({ unit: fc.constantFrom('today' as const, 'yesterday' as const) }),
  );
  const dateKey = (d: DateValue) => dateSpan(d, w.now)[0];
  const ageValue = fc.record({
    n: fc.integer({ min: 1, max: 30 }),
    unit: fc.constantFrom('h' as const, 'd' as const, 'w' as const, 'mo' as const, 'y' as const),
  });
  const ageKey = (v: { n: number; unit: keyof typeof AGE_MS }) => v.n * AGE_MS[v.unit];
  const num = (max: number) => fc.integer({ min: 0, max });
  return fc.oneof(
    { weight: 6, arbitrary: tagName.map((name): Term => ({ t: 'tag', name })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...w.tags), fc.boolean())
        // A pattern ending in an unmatched ')' would close a group: such tags get a prefix pattern.
        .map(([name, prefix]): Term => ({ t: 'wild', pattern: prefix || /[()]/.test(name.slice(-3)) ? `${name.slice(0, 2)}*` : `*${name.slice(-3)}` })),
    },
    // Wide wildcards: unions of more tags than a walk merges one by one (post-set.ts, UNION_SCANNED).
    { weight: 1, arbitrary: fc.constantFrom('*', '*a*', '*r*').map((pattern): Term => ({ t: 'wild', pattern })) },
    {
      weight: 2,
      arbitrary: fc
        .uniqueArray(fc.constantFrom('safe', 'sketchy', 'unsafe', 'q', 'e'), { minLength: 1, maxLength: 2 })
        .map((values): Term => ({ t: 'rating', values })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('user' as const, 'fav' as const), fc.constantFrom(...w.users, 'nobody')).map(([t, name]): Term => ({ t, name })),
    },
    { weight: 1, arbitrary: fc.constantFrom('any', 'none', ...w.pools.map(String), '999999').map((value): Term => ({ t: 'pool', value })) },
    {
      weight: 1,
      // Part of a word, from its start or inside it, in either case.
      arbitrary: fc.tuple(word, fc.nat(2), fc.boolean()).map(([text, from, upper]): Term => {
        const part = text.slice(from, from + 4);
        return { t: 'title', text: upper ? part.toUpperCase() : part };
      }),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom('id' as const, 'likes' as const, 'favs' as const, 'comments' as const, 'width' as const, 'height' as const, 'tagcount' as const),
          range(num(60)),
        )
        .map(([field, r]): Term => ({ t: 'num', field, range: ordered(r, (v) => v) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(range(num(40)), fc.boolean())
        .map(([r, kb]): Term => ({ t: 'filesize', range: ordered(kb ? r : mapRange(r, (v) => v * 1000), (v) => v), kb })),
    },
    { weight: 1, arbitrary: range(fc.constantFrom(0, 1.5, 3, 10, 30)).map((r): Term => ({ t: 'duration', range: ordered(r, (v) => v) })) },
    { weight: 2, arbitrary: range(dateValue).map((r): Term => ({ t: 'date', range: ordered(r, dateKey) })) },
    { weight: 1, arbitrary: range(ageValue).map((r): Term => ({ t: 'age', range: ordered(r, ageKey) })) },
    {
      weight: 1,
      arbitrary: fc
        .uniqueArray(fc.constantFrom('image' as const, 'video' as const, 'gif' as const), { minLength: 1, maxLength: 2 })
        .map((values): Term => ({ t: 'type', values })),
    },
    { weight: 1, arbitrary: somePost.map((p): Term => ({ t: 'sha256', hex: p.sha256 })) },
    { weight: 1, arbitrary: fc.tuple(somePost, fc.boolean()).map(([p, upper]): Term => ({ t: 'md5', hex: upper ? p.md5.toUpperCase() : p.md5 })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('comments' as const, 'likes' as const, 'favs' as const, 'pool' as const, 'parent' as const, 'children' as const)
        .map((what): Term => ({ t: 'has', what })),
    },
    {
      weight: 1,
      // Parents (some with several children), posts that are no parent, and an id of no post.
      arbitrary: fc
        .constantFrom('any', 'none', ...new Set(w.posts.flatMap((p) => (p.parent === null ? [] : [String(p.parent)]))), String(w.posts[0].id), '999999')
        .map((value): Term => ({ t: 'parent', value })),
    },
  );
}

function mapRange<V>(r: Range<V>, f: (v: V) => V): Range<V> {
  if (r.form === 'cmp') return { ...r, v: f(r.v) };
  if (r.form === 'span') return { form: 'span', a: r.a === undefined ? undefined : f(r.a), b: r.b === undefined ? undefined : f(r.b) };
  return { form: 'list', vs: r.vs.map(f) };
}

/** Queries of up to 3 levels and at most 20 terms. */
export function queryArb(w: World): fc.Arbitrary<Q> {
  return treesOf(termArb(w));
}

/** Queries of what the in-memory sets hold: tags, wildcards, user:, fav:, pool:, rating:, type:, title:, id:, date: and age:, with AND, OR and NOT. */
export function setQueryArb(w: World): fc.Arbitrary<Q> {
  const sets = new Set(['tag', 'wild', 'user', 'fav', 'pool', 'date', 'age', 'rating', 'type', 'title']);
  // pool:any and pool:none are a condition on every post, not a pool's set.
  return treesOf(
    termArb(w).filter((t) => (sets.has(t.t) && !(t.t === 'pool' && (t.value === 'any' || t.value === 'none'))) || (t.t === 'num' && t.field === 'id')),
  );
}

/** Trees of the terms with NOT, AND and OR, up to 3 levels and at most 20 terms. */
function treesOf(terms: fc.Arbitrary<Term>): fc.Arbitrary<Q> {
  const term = terms.map((t): Q => ({ k: 'term', term: t }));
  const { q } = fc.letrec<{ q: Q }>((tie) => ({
    q: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: term },
      { weight: 2, arbitrary: tie('q').map((x): Q => ({ k: 'not', q: x })) },
      { weight: 2, arbitrary: fc.array(tie('q'), { minLength: 2, maxLength: 3 }).map((qs): Q => ({ k: 'and', qs })) },
      { weight: 2, arbitrary: fc.array(tie('q'), { minLength: 2, maxLength: 3 }).map((qs): Q => ({ k: 'or', qs })) },
    ),
  }));
  return q.filter((x) => termCount(x) <= 20);
}

export function termCount(q: Q): number {
  return q.k === 'term' ? 1 : q.k === 'not' ? termCount(q.q) : q.qs.reduce((n, x) => n + termCount(x), 0);
}
