// The metatags of the search language (docs/search.md), for the search box's suggestions and the
// syntax help page. One list, so the two cannot disagree; the server is what decides.

export interface Metatag {
  name: string;
  /** What it matches, in a few words. */
  hint: string;
  /** Fixed values the box offers after `name:`. */
  values?: string[];
  /** The value may be a comma list of those values. */
  list?: boolean;
  example: string;
}

export const ORDERS = ['newest', 'oldest', 'id', 'id_asc', 'likes', 'likes_asc', 'favs', 'comments', 'filesize', 'duration', 'tagcount', 'random'];

export const METATAGS: Metatag[] = [
  {
    name: 'rating',
    hint: 'safe, sketchy or unsafe; a comma list for several',
    values: ['safe', 'sketchy', 'unsafe'],
    list: true,
    example: 'rating:safe,sketchy',
  },
  { name: 'order', hint: 'sort order, once, outside parentheses', values: ORDERS, example: 'order:likes' },
  { name: 'type', hint: 'image, video, or gif (animated images)', values: ['image', 'video', 'gif'], example: 'type:video' },
  { name: 'has', hint: 'has comments, likes, favorites or a pool', values: ['comments', 'likes', 'favs', 'pool'], example: 'has:comments' },
  { name: 'pool', hint: 'in the pool with this id, in any pool, or in none', values: ['any', 'none'], example: 'pool:any' },
  { name: 'user', hint: 'uploaded by this user', example: 'user:alice' },
  { name: 'fav', hint: 'favorited by this user', example: 'fav:alice' },
  { name: 'title', hint: 'text in the title (quote spaces)', example: 'title:"red harbour"' },
  { name: 'date', hint: 'uploaded on a day, month or year (UTC), or a range', example: 'date:2026-01-01..2026-01-31' },
  { name: 'age', hint: 'uploaded this long ago (h, d, w, mo, y)', example: 'age:<7d' },
  { name: 'likes', hint: 'number of likes', example: 'likes:>=10' },
  { name: 'favs', hint: 'number of favorites', example: 'favs:1..5' },
  { name: 'comments', hint: 'number of comments', example: 'comments:0' },
  { name: 'tagcount', hint: 'number of tags', example: 'tagcount:<3' },
  { name: 'id', hint: 'post id', example: 'id:100..200' },
  { name: 'width', hint: 'width in pixels', example: 'width:>=1920' },
  { name: 'height', hint: 'height in pixels', example: 'height:<600' },
  { name: 'filesize', hint: 'file size in bytes (kb, mb suffixes)', example: 'filesize:>2mb' },
  { name: 'duration', hint: 'video length in seconds', example: 'duration:10..60' },
  { name: 'sha256', hint: 'the file’s SHA-256', example: 'sha256:9f86d0…' },
  { name: 'md5', hint: 'the file’s MD5', example: 'md5:5d4114…' },
];
