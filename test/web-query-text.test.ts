// The search box's reading of its own text (web/src/lib/query-text.ts): which word the caret is
// in, what it may complete to, and whether the query sets its own order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { METATAG_NAMES } from '../src/search/compile.ts';
import { ORDERS as SERVER_ORDERS } from '../src/search/expr.ts';
import { METATAGS, ORDERS } from '../web/src/lib/metatags.ts';
import { metaSuggestions, queryOrder, tagLike, wordAt } from '../web/src/lib/query-text.ts';

/** The caret is where `|` is written. */
function word(marked: string) {
  const caret = marked.indexOf('|');
  return wordAt(marked.replace('|', ''), caret);
}

test('the word under the caret keeps its -, ~ and ( head and its ) tail apart', () => {
  assert.deepEqual(word('cat -blu|'), { start: 4, end: 8, head: '-', body: 'blu', tail: '', typed: 'blu' });
  assert.deepEqual(word('(~sky or ~se|) rating:safe'), { start: 9, end: 13, head: '~', body: 'se', tail: ')', typed: 'se' });
  assert.deepEqual(word('((blu|e)) cat'), { start: 0, end: 8, head: '((', body: 'blue', tail: '))', typed: 'blu' });
  // A tag with its own parentheses keeps them.
  assert.equal(word('foo_(ba|r)')?.body, 'foo_(bar)');
  assert.equal(word('rating:s|')?.typed, 'rating:s');
});

test('no word between words, in a head, in a tail, or inside quotes', () => {
  assert.equal(word('cat |dog'), null);
  assert.equal(word('cat |'), null);
  assert.equal(word('-|'), null);
  assert.equal(word('(sky)|'), null);
  assert.equal(word('title:"red har|'), null);
});

test('metatag names complete from their start, and fixed values after the colon', () => {
  assert.deepEqual(
    metaSuggestions('ra').map((s) => [s.text, s.complete]),
    [['rating:', false]],
  );
  assert.deepEqual(
    metaSuggestions('d').map((s) => s.text),
    ['date:', 'duration:'],
  );
  assert.deepEqual(
    metaSuggestions('order:li').map((s) => [s.text, s.complete]),
    [
      ['order:likes', true],
      ['order:likes_asc', true],
    ],
  );
  assert.deepEqual(
    metaSuggestions('Rating:safe,').map((s) => s.text),
    ['Rating:safe,sketchy', 'Rating:safe,unsafe'],
  );
  assert.deepEqual(
    metaSuggestions('pool:').map((s) => s.text),
    ['pool:any', 'pool:none'],
  );
  assert.deepEqual(metaSuggestions('user:al'), []);
  assert.deepEqual(metaSuggestions('blue_'), []);
});

test('tags are looked up only for plain names', () => {
  assert.equal(tagLike('blue'), true);
  assert.equal(tagLike('blue_*'), false);
  assert.equal(tagLike('rating:s'), false);
  assert.equal(tagLike(''), false);
});

test('order: is found at any place but inside a quoted value', () => {
  assert.equal(queryOrder('cat order:Likes'), 'likes');
  assert.equal(queryOrder('order:"favs" cat'), 'favs');
  assert.equal(queryOrder('(cat order:id)'), 'id');
  assert.equal(queryOrder('-order:random'), 'random');
  assert.equal(queryOrder('cat order:'), '');
  assert.equal(queryOrder('title:"by order:likes" cat'), null);
  assert.equal(queryOrder('reorder:likes'), null);
  assert.equal(queryOrder('cat'), null);
});

test('the box suggests every metatag and order the server knows, and no other', () => {
  // uploader:, favcount: and score: are the server's aliases of user:, favs: and likes:, left out of the list.
  const aliases = ['uploader', 'favcount', 'score'];
  assert.deepEqual(METATAGS.map((m) => m.name).sort(), METATAG_NAMES.filter((n) => !aliases.includes(n)).sort());
  assert.deepEqual(ORDERS, Object.keys(SERVER_ORDERS));
});
