import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonWriter } from '../../core/json-bytes.ts';
import { DanbooruPostArray, type PostRow, rowNumber, rowText } from './danbooru-post-object.ts';

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
  last_commented_at: null,
  source: null,
  parent_id: null,
  has_children: false,
});

const ROOT = 'http://board.example/media/';
/** One post's object as GET /posts/<id>.json writes it, from its row's text. */
const danbooruPostJson = (p: PostRow, categories: Map<string, string>, uploaderName = 'alice') =>
  new DanbooruPostArray([rowText(p)], [uploaderName], ROOT, categories).json(0);
const object = (tagString: string, categories: Map<string, string>) => JSON.parse(danbooruPostJson(row(tagString), categories));

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

test('every field of a video post with a sample, a parent, children, comments and text outside ASCII', () => {
  const p: PostRow = {
    ...row('cat "odd" tag ünï'),
    media_type: 'video',
    file_path: 'originals/ab/cd/abcd.mp4',
    thumb_path: 'thumbs/ab/cd/abcd.webp',
    preview_path: 'previews/ab/cd/abcd.webm',
    width: 1920,
    height: 1080,
    duration: 12.5,
    parent_id: 3,
    has_children: true,
    last_commented_at: Date.UTC(2026, 0, 4, 5, 6, 7, 89),
    source: 'https://example.com/ü?a="b"\\',
    content_rating: 'unsafe',
  };
  const url = (path: string) => `${ROOT}${path}`;
  assert.deepEqual(JSON.parse(danbooruPostJson(p, new Map([['cat', 'artist']]), 'ñame')), {
    id: 7,
    created_at: '2026-01-02T00:00:00.000+00:00',
    updated_at: '2026-01-03T00:00:00.000+00:00',
    uploader_id: 2,
    uploader_name: 'ñame',
    score: 3,
    up_score: 3,
    down_score: 0,
    fav_count: 1,
    source: 'https://example.com/ü?a="b"\\',
    md5: 'd41d8cd98f00b204e9800998ecf8427e',
    rating: 'e',
    image_width: 1920,
    image_height: 1080,
    file_ext: 'mp4',
    file_size: 1234,
    tag_string: 'cat "odd" tag ünï',
    tag_string_general: '"odd" tag ünï',
    tag_string_artist: 'cat',
    tag_string_copyright: '',
    tag_string_character: '',
    tag_string_meta: '',
    tag_count: 4,
    tag_count_general: 3,
    tag_count_artist: 1,
    tag_count_copyright: 0,
    tag_count_character: 0,
    tag_count_meta: 0,
    parent_id: 3,
    has_children: true,
    has_active_children: true,
    has_large: true,
    is_pending: false,
    is_flagged: false,
    is_deleted: false,
    is_banned: false,
    file_url: url('originals/ab/cd/abcd.mp4'),
    large_file_url: url('previews/ab/cd/abcd.webm'),
    preview_file_url: url('thumbs/ab/cd/abcd.webp'),
    media_asset: {
      id: 7,
      md5: 'd41d8cd98f00b204e9800998ecf8427e',
      file_ext: 'mp4',
      file_size: 1234,
      image_width: 1920,
      image_height: 1080,
      duration: 12.5,
      variants: [
        { type: '180x180', url: url('thumbs/ab/cd/abcd.webp'), width: 180, height: 101, file_ext: 'webp' },
        { type: 'sample', url: url('previews/ab/cd/abcd.webm'), width: 1920, height: 1080, file_ext: 'webm' },
        { type: 'original', url: url('originals/ab/cd/abcd.mp4'), width: 1920, height: 1080, file_ext: 'mp4' },
      ],
    },
    last_comment_bumped_at: null,
    last_commented_at: '2026-01-04T05:06:07.089+00:00',
    last_noted_at: null,
    approver_id: null,
    pixiv_id: null,
    bit_flags: 0,
  });
});

test('a page of posts is one JSON array of their objects, in the order given', () => {
  const rows = [row('a'), { ...row('b c'), id: 5 }, { ...row(''), id: 2 }];
  const w = new JsonWriter(Buffer.alloc(16));
  new DanbooruPostArray(rows.map(rowText), ['alice', 'bob', 'carol'], ROOT, new Map()).write(w);
  const page = JSON.parse(w.buffer.toString('utf8', 0, w.at));
  assert.deepEqual(
    page.map((p: { id: number; tag_string: string }) => [p.id, p.tag_string]),
    [
      [7, 'a'],
      [5, 'b c'],
      [2, ''],
    ],
  );
  assert.deepEqual(page[1], JSON.parse(danbooruPostJson(rows[1], new Map(), 'bob')));
  const empty = new JsonWriter();
  new DanbooruPostArray([], [], ROOT, new Map()).write(empty);
  assert.equal(empty.buffer.toString('utf8', 0, empty.at), '[]');
});

test('a page turned round (a cursor read upwards) keeps each post with its uploader', () => {
  const page = new DanbooruPostArray([rowText({ ...row('a'), id: 1 }), rowText({ ...row('b'), id: 2 })], ['alice', 'bob'], ROOT, new Map());
  page.reverse();
  const w = new JsonWriter();
  page.write(w);
  const objects = JSON.parse(w.buffer.toString('utf8', 0, w.at)) as { id: number; uploader_name: string }[];
  assert.deepEqual(
    objects.map((p) => [p.id, p.uploader_name]),
    [
      [2, 'bob'],
      [1, 'alice'],
    ],
  );
});

test('a field read in place: numbers digit by digit, or through Number when not whole', () => {
  const p = { ...row('x'), duration: 12.25, file_size: 9_007_199_254_740, parent_id: null };
  const object = JSON.parse(danbooruPostJson(p, new Map()));
  assert.equal(object.media_asset.duration, 12.25);
  assert.equal(object.file_size, 9_007_199_254_740);
  assert.equal(object.parent_id, null);
  assert.throws(() => new DanbooruPostArray(['7\x1f2'], ['alice'], ROOT, new Map()).json(0), /fields/);
});

test('a row read by field: its id, its uploader and the data version written after its fields', () => {
  const text = `${rowText({ ...row('a'), id: 41, uploader_id: 9 })}\x1f1234`;
  assert.equal(rowNumber(text, 'id'), 41);
  assert.equal(rowNumber(text, 'uploader_id'), 9);
  assert.equal(rowNumber(text, 'version'), 1234);
  // The version after the fields is not the post's: the object is the same with or without it.
  assert.deepEqual(
    JSON.parse(new DanbooruPostArray([text], ['alice'], ROOT, new Map()).json(0)),
    JSON.parse(danbooruPostJson({ ...row('a'), id: 41, uploader_id: 9 }, new Map())),
  );
});
