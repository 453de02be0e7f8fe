import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Node, parseQuery, QueryError } from './parse.ts';

/** The tree as compact text: tags bare, metatags name:value, wildcards with *, - for NOT. */
function show(node: Node | null): string {
  if (!node) return '';
  switch (node.kind) {
    case 'tag':
      return node.name;
    case 'wildcard':
      return `${node.pattern}`;
    case 'meta':
      return `${node.name}:${node.value}`;
    case 'not':
      return `-${show(node.node)}`;
    case 'and':
      return `(${node.nodes.map(show).join(' ')})`;
    case 'or':
      return `{${node.nodes.map(show).join(' | ')}}`;
  }
}

const tree = (q: string) => show(parseQuery(q).tree);

function fails(q: string, position: number, message: RegExp): void {
  assert.throws(
    () => parseQuery(q),
    (err: unknown) => err instanceof QueryError && err.position === position && message.test(err.reason),
    `${q} fails at ${position}`,
  );
}

test('terms are ANDed, OR binds looser, parentheses group, - negates', () => {
  assert.equal(tree('cat'), 'cat');
  assert.equal(tree('cat -dog'), '(cat -dog)');
  assert.equal(tree('cat and dog'), '(cat dog)');
  assert.equal(tree('a b or c'), '{(a b) | c}');
  assert.equal(tree('a | b c'), '{a | (b c)}');
  assert.equal(tree('cat -dog (sky or sea)'), '(cat -dog {sky | sea})');
  assert.equal(tree('-(a or b)'), '-{a | b}');
  assert.equal(tree('((a))'), 'a');
  assert.equal(tree(''), '');
  assert.equal(tree('   '), '');
});

test('~a ~b c is (a or b) c', () => {
  assert.equal(tree('~a ~b c'), '(c {a | b})');
  assert.equal(tree('~a c'), '(c a)');
});

test('tags are named as uploads name them; wildcards and parentheses inside tags', () => {
  assert.equal(tree('Blue_Sky'), 'blue_sky');
  assert.equal(tree('blue_*'), 'blue_*');
  assert.equal(parseQuery('*_hair').tree?.kind, 'wildcard');
  assert.equal(tree('foo_(bar)'), 'foo_(bar)');
  assert.equal(tree('(a foo_(bar))'), '(a foo_(bar))');
  assert.equal(tree('(a or foo_(bar)) c'), '({a | foo_(bar)} c)');
});

test('metatags: names case-insensitive, values quotable, negatable and inside OR', () => {
  assert.equal(tree('Rating:safe'), 'rating:safe');
  assert.equal(tree('title:"two words"'), 'title:two words');
  assert.equal(tree('title:"a (b) c" cat'), '(title:a (b) c cat)');
  assert.equal(tree('-rating:unsafe'), '-rating:unsafe');
  assert.equal(tree('likes:>10 or fav:alice'), '{likes:>10 | fav:alice}');
  assert.equal(tree('date:2026-01-01..2026-01-31'), 'date:2026-01-01..2026-01-31');
});

test("a quoted value may close a group: the parenthesis after its quote is the group's, one inside it the value's", () => {
  assert.equal(tree('cat (title:"x y")'), '(cat title:x y)');
  assert.equal(tree('cat (title:"harbor over") order:id'), '(cat title:harbor over)');
  assert.deepEqual(parseQuery('cat (title:"harbor over") order:id').order, { value: 'id', position: 26 });
  assert.equal(tree('(dog or title:"a (b)")'), '{dog | title:a (b)}');
  assert.equal(tree('((title:"x") cat)'), '(title:x cat)');
  assert.equal(tree('title:"x)" cat'), '(title:x) cat)');
  fails('(title:"x"))', 11, /closing parenthesis/);
});

test('order: once, at the top, not negated, not inside OR or parentheses', () => {
  const parsed = parseQuery('cat order:Likes');
  assert.deepEqual(parsed.order, { value: 'likes', position: 4 });
  assert.equal(show(parsed.tree), 'cat');
  assert.equal(parseQuery('order:random').tree, null);
  fails('order:likes order:id', 12, /once/);
  fails('-order:likes', 1, /negated/);
  fails('(cat order:likes)', 5, /parentheses/);
  fails('cat or order:likes', 7, /OR/);
  fails('order:likes or cat', 0, /OR/);
  // Beside a branch's terms, order: orders the whole query.
  assert.deepEqual(parseQuery('order:likes cat or dog').order, { value: 'likes', position: 0 });
  assert.equal(tree('cat or dog order:likes'), '{cat | dog}');
});

test('syntax errors and limits name the character where they are', () => {
  fails('(cat', 0, /not closed/);
  fails('cat)', 3, /closing parenthesis/);
  fails('cat or', 4, /'or'/);
  fails('or cat', 0, /'or'/);
  fails('cat and', 4, /'and'/);
  fails('cat -', 4, /'-'/);
  fails('()', 0, /empty/);
  fails('title:"open', 6, /quote/);
  fails('"cat"', 0, /quotes/);
  fails(`${'('.repeat(11)}a${')'.repeat(11)}`, 10, /10 deep/);
  assert.equal(tree(`${'('.repeat(10)}a${')'.repeat(10)}`), 'a');
  const many = Array.from({ length: 21 }, (_, i) => `t${i}`).join(' ');
  fails(many, many.lastIndexOf('t20'), /20 terms/);
  assert.doesNotThrow(() => parseQuery(`${Array.from({ length: 20 }, (_, i) => `t${i}`).join(' ')} order:likes`), 'order: is not counted');
  fails('a'.repeat(1001), 1000, /1000 characters/);
});
