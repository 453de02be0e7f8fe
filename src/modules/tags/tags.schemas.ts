import { Type, type Static } from 'typebox';
import { Id, StringEnum } from '../../core/schemas.ts';
import { TAG_CATEGORIES } from '../../core/tag-categories.ts';

export const TAG_SORTS = ['most_used', 'newest', 'alphabetical', 'trending'] as const;
export const TIME_RANGES = ['day', 'week', 'month', 'year', 'all'] as const;
export type TagSort = (typeof TAG_SORTS)[number];
export type TimeRange = (typeof TIME_RANGES)[number];

export const TagListQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 64, description: 'Case-insensitive substring of the name; prefix matches come first' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    sortBy: Type.Optional(
      StringEnum(TAG_SORTS, {
        default: 'most_used',
        description: 'most_used: most posts; newest: newest tag; alphabetical; trending: most posts added in the last 7 days',
      }),
    ),
    author: Type.Optional(Type.String({ maxLength: 64, description: "Only count this uploader's posts (all counts)" })),
    category: Type.Optional(StringEnum(TAG_CATEGORIES, { description: 'Only tags of this category' })),
    timeRange: Type.Optional(
      StringEnum(TIME_RANGES, {
        default: 'all',
        description: 'Count only posts created in the last day (24 h), week (7 d), month (30 d) or year (365 d); tags with none are left out',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TagListQuery = Static<typeof TagListQuery>;

export const Tag = Type.Object({
  _id: Id,
  name: Type.String(),
  category: StringEnum(TAG_CATEGORIES),
  postsCount: Type.Integer({ description: 'Posts with this tag (within timeRange and author, when given)' }),
  newPostsToday: Type.Integer({ description: 'Posts since 00:00 UTC today' }),
  newPostsThisWeek: Type.Integer({ description: 'Posts in the last 7 days' }),
});

export const TagList = Type.Object({
  tags: Type.Array(Tag),
  pagination: Type.Object({
    total: Type.Integer(),
    page: Type.Integer(),
    perPage: Type.Integer(),
    totalPages: Type.Integer(),
  }),
});
