// What the post page's History says a version changed (web/src/lib/post-diff.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffVersions, type VersionFields } from '../web/src/lib/post-diff.ts';

const v = (change: Partial<VersionFields>): VersionFields => ({
  title: 'Harbour',
  tags: ['boat', 'sea'],
  contentRating: 'safe',
  source: null,
  parentId: null,
  ...change,
});

test('version 1 is compared with nothing: its tags all added, its fields given as they were, an empty source or parent left out', () => {
  assert.deepEqual(diffVersions(null, v({})), {
    added: ['boat', 'sea'],
    removed: [],
    changes: [
      { label: 'title', from: null, to: 'Harbour' },
      { label: 'rating', from: null, to: 'safe' },
    ],
  });
  assert.deepEqual(diffVersions(null, v({ source: 'https://a.example/1', parentId: '7' })).changes.slice(2), [
    { label: 'source', from: null, to: 'https://a.example/1' },
    { label: 'parent', from: null, to: '#7' },
  ]);
});

test('a later version lists the tags added and removed and only the fields that changed, old -> new, a cleared one as none', () => {
  const before = v({ source: 'https://a.example/1', parentId: '7' });
  const after = v({ tags: ['sea', 'sky'], contentRating: 'sketchy', source: 'https://a.example/1', parentId: null });
  assert.deepEqual(diffVersions(before, after), {
    added: ['sky'],
    removed: ['boat'],
    changes: [
      { label: 'rating', from: 'safe', to: 'sketchy' },
      { label: 'parent', from: '#7', to: 'none' },
    ],
  });
  assert.deepEqual(diffVersions(after, v({ ...after })), { added: [], removed: [], changes: [] });
});
