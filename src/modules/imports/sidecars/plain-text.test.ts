import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readPlainText } from './plain-text.ts';

const media = { file: '/in/hydrus/0a1b.jpg', label: 'hydrus/0a1b.jpg' };

test('plain text: a Hydrus export, namespaces of ours read as kinds, others kept in the name, rating, title and source', () => {
  const text = [
    'creator:jane doe',
    'series:my little pony',
    'character:sunny',
    'meta:highres',
    'general:blue sky',
    'species:cat',
    'rating:questionable',
    'title:Sunny Day',
    'source:pixiv #55',
    'url:https://example.com/post/1',
    'source:https://example.com/second',
    '',
    '  smile  ',
    ':d',
    'smile',
  ].join('\r\n');
  assert.deepEqual(readPlainText(text, media), {
    origin: 'file',
    originId: null,
    file: media.file,
    label: media.label,
    md5: null,
    tags: [
      { name: 'jane doe', category: 'artist' },
      { name: 'my little pony', category: 'copyright' },
      { name: 'sunny', category: 'character' },
      { name: 'highres', category: 'meta' },
      { name: 'blue sky', category: 'general' },
      { name: 'species:cat', category: null },
      { name: 'smile', category: 'general' },
      { name: ':d', category: 'general' },
    ],
    rating: 'sketchy',
    source: 'https://example.com/post/1',
    title: 'Sunny Day',
    description: null,
    createdAt: null,
    parentOriginId: null,
    pools: [],
    score: null,
    favCount: null,
    uploader: null,
    comments: [],
  });
});

test("plain text: gallery-dl's --write-tags, bare names; ratings in every spelling; a rating of no known word stays a tag", () => {
  const item = readPlainText('1girl\nhatsune_miku\nrating:lewd\n', media);
  assert.deepEqual(item.tags, [
    { name: '1girl', category: 'general' },
    { name: 'hatsune_miku', category: 'general' },
    { name: 'rating:lewd', category: null },
  ]);
  assert.equal(item.rating, null);
  // The rules of post-family.ts's parseSource: an http(s) URL of at most 1024 characters.
  const long = `https://example.com/${'a'.repeat(1004)}`;
  assert.equal(readPlainText(`source:${long}`, media).source, long);
  assert.equal(readPlainText(`source:${long}a`, media).source, null);
  assert.equal(readPlainText('source:ftp://example.com/a.jpg', media).source, null);
  for (const [word, rating] of [
    ['safe', 'safe'],
    ['general', 'safe'],
    ['sensitive', 'safe'],
    ['Explicit', 'unsafe'],
    ['unsafe', 'unsafe'],
    ['sketchy', 'sketchy'],
  ])
    assert.equal(readPlainText(`rating:${word}`, media).rating, rating, word);
});
