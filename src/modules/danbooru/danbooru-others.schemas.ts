import { Type, type Static } from 'typebox';

/** Danbooru's clients send parameters of their own (`login`, `api_key`, `only`, ...): unknown ones are ignored, not refused. */
const open = { additionalProperties: true } as const;
const text = (description: string) => Type.Optional(Type.String({ maxLength: 1000, description }));

/** Danbooru's paging: `limit` (larger is clamped to 200) and `page` (past 1000 is a 410). */
const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Items a page; default 20, more than 200 is taken as 200' })),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Page number from 1; past 1000 is a 410' })),
};

/** Danbooru's timestamps: ISO 8601 with milliseconds and an explicit UTC offset. */
const Time = Type.String({ description: 'YYYY-MM-DDTHH:mm:ss.sss+00:00' });

export const PoolsQuery = Type.Object(
  {
    'search[name_matches]': text('Pool name, `*` as a wildcard; without one, names containing it (case-insensitive, `_` for spaces)'),
    'search[name_contains]': text('Names containing this (case-insensitive, `_` for spaces)'),
    'search[id]': text('Comma-separated pool ids'),
    'search[category]': text('`series` (every pool) or `collection` (none)'),
    'search[order]': text('updated_at (default), name, created_at or post_count'),
    ...paging,
  },
  open,
);
export type PoolsQuery = Static<typeof PoolsQuery>;

export const DanbooruPool = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'Spaces written as underscores, as Danbooru stores pool names' }),
  description: Type.String(),
  post_ids: Type.Array(Type.Integer(), { description: 'In pool order' }),
  post_count: Type.Integer(),
  category: Type.Union([Type.Literal('series'), Type.Literal('collection')], { description: 'Our pools are ordered: always series' }),
  is_active: Type.Boolean(),
  is_deleted: Type.Boolean(),
  created_at: Time,
  updated_at: Time,
});

export const DanbooruIdParams = Type.Object({ id: Type.String({ maxLength: 20 }) });

export const TagsQuery = Type.Object(
  {
    'search[name_matches]': text('Tag name, `*` as a wildcard; an alias name finds the tag it stands for'),
    'search[name]': text('Comma-separated tag names; alias names find the tags they stand for'),
    'search[category]': text("Danbooru's category numbers, comma-separated: 0 general, 1 artist, 3 copyright, 4 character, 5 meta"),
    'search[order]': text('count (default), date or name'),
    'search[hide_empty]': text('true (default) or false: whether tags on no post are left out'),
    ...paging,
  },
  open,
);
export type TagsQuery = Static<typeof TagsQuery>;

export const DanbooruTag = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  post_count: Type.Integer(),
  category: Type.Integer({ description: '0 general, 1 artist, 3 copyright, 4 character, 5 meta' }),
  created_at: Time,
  updated_at: Time,
  is_deprecated: Type.Boolean(),
  words: Type.Array(Type.String()),
});

export const AutocompleteQuery = Type.Object(
  {
    'search[query]': text('The start of a tag name (`*` as a wildcard); a leading - or ~ is kept on the value'),
    'search[type]': text('tag_query (or tag); any other kind answers an empty list'),
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Default 10, at most 20' })),
  },
  open,
);
export type AutocompleteQuery = Static<typeof AutocompleteQuery>;

export const AutocompleteItem = Type.Object({
  type: Type.Literal('tag-word'),
  label: Type.String(),
  value: Type.String(),
  category: Type.Integer(),
  post_count: Type.Integer(),
  antecedent: Type.Union([Type.String(), Type.Null()], { description: 'The alias name the match came through, else null' }),
});

export const CommentsQuery = Type.Object(
  {
    'search[post_id]': text("A post's id: its comments, oldest first; without it, the newest comments"),
    group_by: text('Ignored: comments are always listed one by one'),
    ...paging,
  },
  open,
);
export type CommentsQuery = Static<typeof CommentsQuery>;

export const DanbooruComment = Type.Object({
  id: Type.Integer(),
  post_id: Type.Integer(),
  creator_id: Type.Integer(),
  creator_name: Type.String(),
  body: Type.String(),
  score: Type.Integer(),
  created_at: Time,
  updated_at: Time,
  updater_id: Type.Integer(),
  do_not_bump_post: Type.Boolean(),
  is_deleted: Type.Boolean(),
  is_sticky: Type.Boolean(),
});

export const FavoriteQuery = Type.Object({ post_id: text('The post to favorite (may come in the body instead)') }, open);
export const FavoriteBody = Type.Union([
  Type.Object({ post_id: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Integer()])) }, open),
  Type.Null(),
]);
export const DanbooruFavorite = Type.Object({
  id: Type.Integer({ description: 'The post id (favorites have no id of their own here)' }),
  post_id: Type.Integer(),
  user_id: Type.Integer(),
});

export const VoteQuery = Type.Object({ score: text('1 (a like); -1 is refused: there are no downvotes') }, open);
export const DanbooruVote = Type.Object({
  id: Type.Integer({ description: 'The post id (votes have no id of their own here)' }),
  post_id: Type.Integer(),
  user_id: Type.Integer(),
  score: Type.Integer(),
  created_at: Time,
});
