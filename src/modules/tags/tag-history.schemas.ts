import { Type } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';
import { TAG_CATEGORIES } from '../../core/tag-categories.ts';
import { TagAliasList, TagAliasListQuery } from './tag-detail.schemas.ts';

const Fields = Type.Union(
  [
    Type.Object(
      {
        name: Type.Optional(Type.String()),
        category: Type.Optional(StringEnum(TAG_CATEGORIES)),
        description: Type.Optional(Type.String()),
        from: Type.Optional(Type.String({ description: "An alias's name, or an implication's antecedent" })),
        to: Type.Optional(Type.String({ description: "An alias's target, or an implication's consequent" })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'The fields the change touched, as they were (before) and became (after); null before a creation and after a deletion' },
);

export const TagHistoryEntry = Type.Object({
  id: Id,
  kind: StringEnum(['tag', 'alias', 'implication'] as const, {
    description: "tag: the tag's category, description or name; alias: an alias of it (or the alias it was); implication: one it is a side of",
  }),
  action: StringEnum(['create', 'update', 'delete'] as const),
  user: Type.Union([Type.Object({ username: Type.String() }), Type.Null()], {
    description: 'Who made the change; null when it was made from the command line without --as, or the account is gone',
  }),
  createdAt: Timestamp,
  before: Fields,
  after: Fields,
});

/** Paged as the alias list is. */
export const TagHistoryQuery = TagAliasListQuery;
export type TagHistoryQuery = TagAliasListQuery;

export const TagHistory = Type.Object({
  name: Type.String({ description: "The tag's name now (an alias name, or an old name, answers its tag's history)" }),
  history: Type.Array(TagHistoryEntry, { description: 'Newest first' }),
  pagination: TagAliasList.properties.pagination,
});
