// The metatags of the search language (docs/search.md), for the search box's suggestions and the
// syntax help page. One list, so the two cannot disagree; test/web-query-text.test.ts holds it
// to the server's. It is in the browse page's bundle: the help page keeps the examples.

export interface Metatag {
  name: string;
  /** What it matches, in a few words. */
  hint: string;
  /** Fixed values the box offers after `name:`. */
  values?: string[];
  /** The value may be a comma list of those values. */
  list?: boolean;
}

export const ORDERS = ['newest', 'oldest', 'id', 'id_asc', 'likes', 'likes_asc', 'favs', 'comments', 'filesize', 'duration', 'tagcount', 'random', 'pool'];

export const METATAGS: Metatag[] = [
  {
    name: 'rating',
    hint: 'safe, sketchy or unsafe; a comma list for several',
    values: ['safe', 'sketchy', 'unsafe'],
    list: true,
  },
  { name: 'order', hint: 'sort order, once, outside parentheses', values: ORDERS },
  { name: 'type', hint: 'image, video, or gif (animated images)', values: ['image', 'video', 'gif'] },
  { name: 'has', hint: 'has comments, likes, favorites, a pool, a parent or children', values: ['comments', 'likes', 'favs', 'pool', 'parent', 'children'] },
  { name: 'pool', hint: 'in the pool with this id, in any pool, or in none', values: ['any', 'none'] },
  { name: 'ordpool', hint: "the pool with this id, in the pool's own order (as pool: with order:pool)" },
  { name: 'parent', hint: 'a child of the post with this id, or with any parent or none', values: ['any', 'none'] },
  { name: 'user', hint: 'uploaded by this user' },
  { name: 'fav', hint: 'favorited by this user' },
  { name: 'title', hint: 'text in the title (quote spaces)' },
  { name: 'date', hint: 'uploaded on a day, month or year (UTC), or a range' },
  { name: 'age', hint: 'uploaded this long ago (h, d, w, mo, y)' },
  { name: 'likes', hint: 'number of likes' },
  { name: 'favs', hint: 'number of favorites' },
  { name: 'comments', hint: 'number of comments' },
  { name: 'tagcount', hint: 'number of tags' },
  { name: 'id', hint: 'post id' },
  { name: 'width', hint: 'width in pixels' },
  { name: 'height', hint: 'height in pixels' },
  { name: 'filesize', hint: 'file size in bytes (kb, mb, gb suffixes)' },
  { name: 'duration', hint: 'video length in seconds' },
  { name: 'sha256', hint: 'the file’s SHA-256' },
  { name: 'md5', hint: 'the file’s MD5' },
];
