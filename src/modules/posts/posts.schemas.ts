import { Type, type Static } from 'typebox';
import { Id, RelativePath, StringEnum, Timestamp, MEDIA_TYPES, RATINGS } from '../../core/schemas.ts';
import { TAG_CATEGORIES } from '../../core/tag-categories.ts';
import { Job } from '../../jobs/jobs.schemas.ts';

export const SORTS = ['newest', 'oldest', 'most_liked', 'most_commented', 'most_favorited'] as const;
export type Sort = (typeof SORTS)[number];

const DATE_TEXT = 'ISO date (YYYY-MM-DD, UTC) or ISO date-time; inclusive';

export const PostListQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Posts to skip' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 24, description: 'Posts per page, 1-100' })),
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "Whitespace-separated terms; each must match the title (case-insensitive substring) or be one of the post's tags",
      }),
    ),
    uploader: Type.Optional(Type.String({ maxLength: 64, description: 'Uploader username (case-insensitive)' })),
    tag: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 20,
        description: 'Repeatable; the post must have every tag given',
      }),
    ),
    // No schema default: a sortBy that was not sent must be told apart from newest, which order: in q may not come with.
    sortBy: Type.Optional(StringEnum(SORTS, { description: 'Default newest. Not together with order: in q' })),
    contentRating: Type.Optional(StringEnum(RATINGS)),
    minLikes: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Only posts with at least this many likes' })),
    dateFrom: Type.Optional(Type.String({ maxLength: 40, description: `Created at or after: ${DATE_TEXT}` })),
    before: Type.Optional(
      Type.String({
        maxLength: 32,
        description:
          "Keyset cursor for deep pages (sortBy=newest): only posts older than this post id. Pass the previous page's `nextCursor`; `offset` then counts from the cursor",
      }),
    ),
    dateTo: Type.Optional(Type.String({ maxLength: 40, description: `Created at or before: ${DATE_TEXT}; a bare date means the end of that UTC day` })),
    q: Type.Optional(
      Type.String({
        maxLength: 10_000,
        description:
          'A search in the query language (docs/search.md), ANDed with the other filters: `cat -dog (sky or sea) rating:safe likes:>10 order:likes`. ' +
          'Tags (case-insensitive; `*` wildcards, each expanded to at most 100 tags), `-` NOT, `or`/`|` OR, parentheses, `~a ~b` (either), and metatags: ' +
          'rating:, user:, fav:, pool:ID|any|none, title:, id:, likes:, favs:, comments:, width:, height:, filesize: (kb/mb), duration:, tagcount: (ranges N, >N, >=N, <N, <=N, A..B, A.., ..B, a,b,c), ' +
          'date: (YYYY-MM-DD, YYYY-MM, YYYY, today, yesterday, and ranges of them), age: (e.g. <7d; h, d, w, mo, y), type:image|video|gif, sha256:, md5:, has:comments|likes|favs|pool|parent|children, ' +
          'parent:ID|any|none (the children of post ID, not ID itself: `id:ID or parent:ID` is the family; any: has a parent; none: has none), ' +
          'and order:newest|oldest|id|id_asc|likes|likes_asc|favs|comments|filesize|duration|tagcount|random (once, not negated, not inside OR or parentheses; not with sortBy). ' +
          'At most 1,000 characters and 20 terms (settings SEARCH_MAX_LENGTH, SEARCH_MAX_TERMS). A syntax error is a 400 whose details give field `q`, the message and the character `position`; ' +
          'a query still running after SEARCH_TIME_BUDGET_MS (2 s) ends with 503 and Retry-After',
      }),
    ),
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_147_483_646,
        description: 'For order:random: the same seed gives the same order, so pages agree; without one, each request shuffles anew',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PostListQuery = Static<typeof PostListQuery>;

export const PostListItem = Type.Object({
  id: Id,
  title: Type.String(),
  thumbnail: RelativePath,
  imageUrl: RelativePath,
  likes: Type.Integer(),
  comments: Type.Integer(),
  favorites: Type.Integer(),
  contentRating: StringEnum(RATINGS),
  mediaType: StringEnum(MEDIA_TYPES),
  width: Type.Integer({ description: 'Original width in pixels' }),
  height: Type.Integer({ description: 'Original height in pixels' }),
  author: Type.Object({ username: Type.String() }),
  tags: Type.Array(Type.String()),
  createdAt: Timestamp,
});
export type PostListItem = Static<typeof PostListItem>;

export const PostList = Type.Object({
  posts: Type.Array(PostListItem),
  totalPosts: Type.Integer({ description: 'Exact, unless totalIsEstimate is true' }),
  totalIsEstimate: Type.Boolean({
    description:
      'true when totalPosts is an estimate. All posts, one rating, one tag, minLikes with or without contentRating, and a date range alone are always exact. Filters without a stored count are counted exactly while that is cheap (up to 10,000 matches; several tags alone, when each is one of the tags a server keeps in memory (the most used and the least used: 803 and 28,210 of the 50,000 at a million posts), or when every link of the one that is not was read for the page; through a tag, when the rarest one has at most 500 posts; one search term, under 200 title matches, or when the term (3+ characters) is inside one word of the titles and no tag has its name); past that the total is scaled from the share of matches among the newest posts (of the date range, when there is one)',
  }),
  currentPage: Type.Integer({ description: 'floor(offset / limit) + 1 (counted from the cursor when `before` is given)' }),
  totalPages: Type.Integer({ description: 'ceil(totalPosts / limit)' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'With sortBy=newest and a full page: pass as `before` for the next page' }),
  wildcards: Type.Optional(
    Type.Array(
      Type.Object({
        pattern: Type.String(),
        tags: Type.Array(Type.String(), { description: 'The tags it stood for, the most used first' }),
        capped: Type.Boolean({ description: 'true when more tags matched than the 100 used' }),
      }),
      { description: 'Only when `q` has wildcards: what each one was expanded to' },
    ),
  ),
});

/** GET /api/posts's answer: a PostList and what the viewer's filters left out of it. */
export const PostSearchList = Type.Object({
  ...PostList.properties,
  hiddenPosts: Type.Integer({
    minimum: 0,
    description:
      "How many posts the request matches that the viewer's filters leave out (a member's blacklist and ratings shown, GET|PUT /api/users/me/preferences; a visitor's, the VISITOR_RATINGS setting): " +
      'the total without the filters minus totalPosts. Exact when both totals are; when totalIsEstimate is true, or the count without the filters is past 10,000, it may be an estimate too. ' +
      '0 when the filters hide nothing, or there are none',
  }),
});

export const TagDetail = Type.Object({
  name: Type.String(),
  category: StringEnum(TAG_CATEGORIES),
  postsCount: Type.Integer(),
});

export const PostDetail = Type.Object({
  id: Id,
  title: Type.String(),
  content: Type.String({ description: 'Post description text' }),
  imageUrl: RelativePath,
  thumbnail: RelativePath,
  previewUrl: Type.Union([RelativePath, Type.Null()], { description: 'About 1,000 px WebP preview, when one exists' }),
  mediaType: StringEnum(MEDIA_TYPES),
  mime: Type.String(),
  fileSize: Type.Integer({ description: 'Bytes' }),
  width: Type.Integer(),
  height: Type.Integer(),
  duration: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds, for video' }),
  codecs: Type.Union([Type.String(), Type.Null()], { description: 'Video and audio codecs, e.g. `h264,aac`; null for images' }),
  stats: Type.Object({ likes: Type.Integer(), comments: Type.Integer(), favorites: Type.Integer() }),
  contentRating: StringEnum(RATINGS),
  author: Type.Object({ id: Id, username: Type.String(), avatar: RelativePath }),
  tags: Type.Array(Type.String()),
  tagDetails: Type.Array(TagDetail, { description: 'The tags of `tags`, in the same order, with their category and post count' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  liked: Type.Boolean({ description: 'The signed-in viewer likes this post (false when anonymous)' }),
  favorited: Type.Boolean({ description: 'The signed-in viewer has this post in favorites (false when anonymous)' }),
  source: Type.Union([Type.String(), Type.Null()], { description: 'Where the work comes from (an http or https URL), or null' }),
  parentId: Type.Union([Id, Type.Null()], { description: 'The parent post, or null. Deleting a parent leaves its children without one' }),
  children: Type.Array(Id, { description: 'The posts whose parent this post is, oldest first (`q=parent:<id>` lists them as a page)' }),
  pending: Type.Optional(
    Type.Literal(true, {
      description: "Present (true) while the post waits for a moderator's approval: only its uploader and the moderators get it then (anyone else: 404)",
    }),
  ),
});

const { offset: _offset, limit: _limit, before: _before, ...LIST_FILTERS } = PostListQuery.properties;

/** GET /api/posts/<id>: nothing, or the list the post was opened from, to get its neighbours too. */
export const PostDetailQuery = Type.Object({
  neighbours: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10,
      description:
        'Also give up to this many posts on each side of this one in the list the other parameters describe (the filters and sortBy of GET /api/posts), as `neighbours`: a viewer stepping through a list needs one request every few posts. Without it the answer is the post alone',
    }),
  ),
  at: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10_000_000,
      description:
        "The post's position (offset) in that list, as the client saw it. Without it, or when the list has moved and the post is no longer there, the neighbours are the posts uploaded just before and after it among the filter's posts",
    }),
  ),
  ...LIST_FILTERS,
});
export type PostDetailQuery = Static<typeof PostDetailQuery>;

export const PostDetailWithNeighbours = Type.Object({
  ...PostDetail.properties,
  neighbours: Type.Optional(
    Type.Object(
      {
        before: Type.Array(PostDetail, { description: 'Posts before this one in the list, nearest first' }),
        after: Type.Array(PostDetail, { description: 'Posts after this one in the list, nearest first' }),
      },
      { description: 'Only with `neighbours`' },
    ),
  ),
});

export const PostPatch = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    content: Type.Optional(Type.String({ maxLength: 10_000, description: 'The description text' })),
    tags: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 }), Type.String({ maxLength: 20_000 })], {
        description: 'The full new tag set: an array of names, or one comma-separated string',
      }),
    ),
    contentRating: Type.Optional(StringEnum(RATINGS)),
    source: Type.Optional(
      Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
        description: 'Where the work comes from: an http or https URL, at most 1,024 characters; empty or null removes it',
      }),
    ),
    parentId: Type.Optional(
      Type.Union([Type.String({ maxLength: 32 }), Type.Null()], {
        description:
          'The parent post: an existing post, not this one, and not one of its descendants (a 400 naming `parentId` otherwise); empty or null removes it. Any post may be a parent, whoever uploaded it',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PostPatch = Static<typeof PostPatch>;

const BulkTagNames = (description: string) => Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 64, default: [], description }));

export const BulkTags = Type.Object(
  {
    q: Type.String({
      maxLength: 10_000,
      description:
        "Which posts: a search as GET /api/posts's `q` (the same language, limits and 400s with the character `position`), evaluated once, when the request is made; an empty `q` is every post",
    }),
    add: BulkTagNames(
      'Tag names to add, as on upload: aliases are read as their targets, and a category prefix (`artist:name`) gives a tag this creates its category',
    ),
    remove: BulkTagNames('Tag names to remove (aliases are read as their targets)'),
  },
  { additionalProperties: false },
);
export type BulkTags = Static<typeof BulkTags>;

export const BulkTagsStarted = Type.Object(
  { job: Job },
  { description: 'The job doing the edit (GET /api/jobs/<id>); `total` is how many posts the query matched' },
);
