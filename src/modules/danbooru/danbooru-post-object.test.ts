import assert from 'node:assert/strict';
import { test } from 'node:test';
import { danbooruPostJson, type PostRow } from './danbooru-post-object.ts';

const row = (tagString: string): PostRow => ({
  id: 7,
  uploader_id: 2,
  content_rating: 'safe',
  media_type: 'image',
  file_size: 1234,
  width: 800,
  height: 600,
  duration: null,
  md5: 'd41d8cd98f00b204e9800998ecf8427e',
  file_path: 'originals/ab/cd/abcd.png',
  thumb_path: 'thumbs/ab/cd/abcd.webp',
  preview_path: null,
  like_count: 3,
  favorite_count: 1,
  created_at: Date.UTC(2026, 0, 2),
  updated_at: Date.UTC(2026, 0, 3),
  tag_string: tagString,
  uploader_name: 'alice',
  last_commented_at: null,
  source: null,
  parent_id: null,
  has_children: false,
});

const ROOT = 'http://board.example/media/';
const object = (tagString: string, categories: Map<string, string>) => JSON.parse(danbooruPostJson(row(tagString), ROOT, categories));

test('tag strings and counts: with no categorised tag at all, with some elsewhere, and with some on the post', () => {
  const none = new Map<string, string>();
  const elsewhere = new Map([['someone_else', 'artist']]);
  const onPost = new Map([
    ['picasso', 'artist'],
    ['hatsune_miku', 'character'],
  ]);
  for (const tags of ['', 'cat', 'cat dog sky', 'a_"quoted"_tag back\\slash ünï']) {
    const names = tags === '' ? [] : tags.split(' ');
    for (const categories of [none, elsewhere]) {
      const p = object(tags, categories);
      assert.equal(p.tag_string, tags);
      assert.equal(p.tag_string_general, tags);
      assert.equal(p.tag_count, names.length);
      assert.equal(p.tag_count_general, names.length);
      assert.equal(p.tag_string_artist, '');
      assert.equal(p.tag_count_artist, 0);
    }
  }
  const p = object('cat hatsune_miku picasso sky', onPost);
  assert.equal(p.tag_string, 'cat hatsune_miku picasso sky');
  assert.equal(p.tag_string_general, 'cat sky');
  assert.equal(p.tag_string_artist, 'picasso');
  assert.equal(p.tag_string_character, 'hatsune_miku');
  assert.deepEqual([p.tag_count, p.tag_count_general, p.tag_count_artist, p.tag_count_copyright, p.tag_count_character, p.tag_count_meta], [4, 2, 1, 0, 1, 0]);
});
