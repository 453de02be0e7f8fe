import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gelbooruTime, readGelbooru } from './gelbooru.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/sidecars', name), 'utf8'));
const media = { file: '/in/gelbooru/gelbooru_7956269_803d.png', label: 'gelbooru/gelbooru_7956269_803d.png' };

test("gelbooru: a gelbooru.com JSON API post from the pool extractor: HTML entities undone, parent 0 is none, ctime date, owner, pool's name", () => {
  assert.deepEqual(readGelbooru(fixture('gelbooru-pool.json'), media), {
    origin: 'gelbooru',
    originId: '7956269',
    file: media.file,
    label: media.label,
    md5: '803d299be841d0d4da46bda2ffca5343',
    tags: ['1girl', 'bench', 'brown_hair', "hand_on_another's_head", 'itunohika', 'original', 'school_uniform', 'skirt'].map((name) => ({
      name,
      category: null,
    })),
    rating: 'safe',
    source: 'https://itukai.tumblr.com/post/701782109617094656',
    title: null,
    description: null,
    createdAt: Date.parse('2022-11-24T14:30:35Z'),
    parentOriginId: null,
    pools: [{ key: '761', name: 'Itunohika: Morning Commute', position: null, description: null }],
    score: 12,
    favCount: null,
    uploader: 'danbooru',
    comments: [],
  });
});

test('gelbooru: a Gelbooru 0.2 post (safebooru, every value a string) with the tags option', () => {
  const item = readGelbooru(fixture('safebooru-v02.json'), media);
  assert.ok(typeof item !== 'string');
  assert.equal(item.origin, 'safebooru');
  assert.equal(item.originId, '1169132');
  assert.equal(item.parentOriginId, '1169100');
  assert.equal(item.score, 4);
  assert.equal(item.rating, 'safe');
  assert.equal(item.createdAt, Date.parse('2016-03-13T21:10:23Z'));
  assert.equal(item.source, 'http://www.pixiv.net/member_illust.php?mode=medium&illust_id=55912345');
  assert.deepEqual(item.tags, [
    { name: 'dc_comics', category: 'copyright' },
    { name: 'heath_ledger', category: 'character' },
    { name: 'kawanakajima', category: 'artist' },
    { name: "mcdonald's", category: 'copyright' },
    { name: 'ronald_mcdonald', category: 'character' },
    { name: 'the_dark_knight', category: 'copyright' },
    { name: 'the_joker', category: 'character' },
  ]);
});

test("gelbooru: tags_metadata is meta, ratings in words, a title kept, an escaped source's ampersand", () => {
  const item = readGelbooru(
    {
      id: '3',
      tags: 'highres solo',
      tags_metadata: 'highres',
      tags_general: 'solo',
      rating: 'explicit',
      title: 'Tom &amp; Jerry',
      source: 'https://example.com/?a=1&amp;b=2',
      parent_id: '0',
    },
    media,
  );
  assert.ok(typeof item !== 'string');
  assert.deepEqual(item.tags, [
    { name: 'highres', category: 'meta' },
    { name: 'solo', category: 'general' },
  ]);
  assert.equal(item.rating, 'unsafe');
  assert.equal(item.title, 'Tom & Jerry');
  assert.equal(item.source, 'https://example.com/?a=1&b=2');
  assert.equal(item.parentOriginId, null);
  assert.equal((readGelbooru({ id: 4, tags: '', rating: 'questionable' }, media) as { rating: string }).rating, 'sketchy');
});

test('gelbooru: the ctime-like date with its offset, and what is not one', () => {
  assert.equal(gelbooruTime('Sat Jan 01 12:34:56 -0500 2022'), Date.parse('2022-01-01T17:34:56Z'));
  assert.equal(gelbooruTime('Mon Feb 7 23:00:00 +0930 2022'), Date.parse('2022-02-07T13:30:00Z'));
  assert.equal(gelbooruTime('2022-01-01 12:00:00'), null);
  assert.equal(gelbooruTime(1672574400), null);
});
