import { Type } from 'typebox';

/** Danbooru's clients send parameters of their own (`login`, `api_key`, `only`, `search[...]`): unknown ones are ignored, not refused. */
const open = { additionalProperties: true } as const;

/** The error answer of every route of Danbooru's API. */
export const DanbooruError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: "The kind of failure, named as Danbooru's classes name it (ActiveRecord::RecordNotFound, ...)" }),
    message: Type.String(),
  },
  { description: "Danbooru's error shape; statuses 401, 403, 404, 410 (page past 1000), 422 (a bad parameter or query), 429 (rate limit, with Retry-After)" },
);

/** The error answers of a route of Danbooru's API, by status. */
export const danbooruErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, DanbooruError]));

export const CountsQuery = Type.Object(
  { tags: Type.Optional(Type.String({ maxLength: 1000, description: 'A search in the query language (Danbooru spellings accepted)' })) },
  open,
);

export const Counts = Type.Object({ counts: Type.Object({ posts: Type.Integer() }) });

const page = Type.Optional(
  Type.String({
    maxLength: 20,
    description: 'A page number 1-1000 (past 1000: 410), b<id> (posts below the id, newest first) or a<id> (above it, newest first); a cursor ignores order:',
  }),
);
const limit = Type.Optional(Type.String({ maxLength: 10, description: 'Posts per page, default 20; over 200 is 200, under 1 is 1' }));

export const DanbooruPostsQuery = Type.Object(
  { tags: Type.Optional(Type.String({ maxLength: 1000, description: 'A search in the query language (Danbooru spellings accepted)' })), limit, page },
  open,
);

export const DanbooruPopularQuery = Type.Object(
  {
    date: Type.Optional(Type.String({ maxLength: 10, description: 'A day, YYYY-MM-DD (UTC); default today' })),
    scale: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], {
        description: 'The day, its week (from Monday) or its calendar month; default day',
      }),
    ),
    limit,
    page,
  },
  open,
);

export const DanbooruPostParams = Type.Object({ id: Type.String({ maxLength: 20 }) });

const time = Type.String({ description: 'YYYY-MM-DDTHH:mm:ss.sss+00:00' });
const url = Type.String({ description: 'Absolute URL ending in name.ext' });
const nothing = Type.Null();
const never = Type.Literal(false);

export const DanbooruPost = Type.Object(
  {
    id: Type.Integer(),
    created_at: time,
    updated_at: time,
    uploader_id: Type.Integer(),
    uploader_name: Type.String(),
    score: Type.Integer({ description: 'Our likes' }),
    up_score: Type.Integer(),
    down_score: Type.Integer(),
    fav_count: Type.Integer(),
    source: Type.String({ description: "The post's source URL; empty when it has none" }),
    md5: Type.String(),
    rating: Type.Union([Type.Literal('g'), Type.Literal('q'), Type.Literal('e')], { description: 'safe g, sketchy q, unsafe e' }),
    image_width: Type.Integer(),
    image_height: Type.Integer(),
    file_ext: Type.String(),
    file_size: Type.Integer(),
    tag_string: Type.String(),
    tag_string_general: Type.String(),
    tag_string_artist: Type.String(),
    tag_string_copyright: Type.String(),
    tag_string_character: Type.String(),
    tag_string_meta: Type.String(),
    tag_count: Type.Integer(),
    tag_count_general: Type.Integer(),
    tag_count_artist: Type.Integer(),
    tag_count_copyright: Type.Integer(),
    tag_count_character: Type.Integer(),
    tag_count_meta: Type.Integer(),
    parent_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The parent post, or null' }),
    has_children: Type.Boolean({ description: 'Whether some post has this one as its parent' }),
    has_active_children: Type.Boolean({ description: 'The same as has_children: no post here is deleted or pending' }),
    has_large: Type.Boolean({ description: 'Whether a sample (our preview) exists' }),
    is_pending: never,
    is_flagged: never,
    is_deleted: never,
    is_banned: never,
    file_url: url,
    large_file_url: url,
    preview_file_url: url,
    media_asset: Type.Object({
      id: Type.Integer(),
      md5: Type.String(),
      file_ext: Type.String(),
      file_size: Type.Integer(),
      image_width: Type.Integer(),
      image_height: Type.Integer(),
      duration: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds; null for images' }),
      variants: Type.Array(
        Type.Object({
          type: Type.Union([Type.Literal('180x180'), Type.Literal('sample'), Type.Literal('original')]),
          url,
          width: Type.Integer(),
          height: Type.Integer(),
          file_ext: Type.String(),
        }),
      ),
    }),
    last_comment_bumped_at: nothing,
    last_commented_at: Type.Union([time, Type.Null()]),
    last_noted_at: nothing,
    approver_id: nothing,
    pixiv_id: nothing,
    bit_flags: Type.Integer(),
  },
  { description: "A post as Danbooru's clients read it" },
);

export const DanbooruPosts = Type.Array(DanbooruPost);
