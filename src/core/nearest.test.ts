import assert from 'node:assert/strict';
import { test } from 'node:test';
import { didYouMean, nearest } from './nearest.ts';

test('the nearest known name to a typo: a letter changed, added, dropped or two swapped; nothing for a word too far from all', () => {
  const orders = ['newest', 'oldest', 'likes', 'likes_asc', 'favs', 'comments', 'random'];
  assert.equal(nearest('lieks', orders), 'likes');
  assert.equal(nearest('like', orders), 'likes');
  assert.equal(nearest('newst', orders), 'newest');
  assert.equal(nearest('comentss', orders), 'comments');
  assert.equal(nearest('banana', orders), null);
  assert.equal(nearest('sortby', ['sortBy', 'limit']), 'sortBy', 'the same name in another case');
  assert.equal(nearest('x'.repeat(1000), orders), null);
  assert.equal(didYouMean('lieks', orders, 'order:'), '; did you mean order:likes?');
  assert.equal(didYouMean('zzz', orders), '');
});
