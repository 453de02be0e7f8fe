import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';
import { TAG_CATEGORIES } from '../../core/tag-categories.ts';

export const MAX_TAG_DESCRIPTION = 10_000;

export const TagNameParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: 'A tag name, or an alias name (answered with its target)' }),
});

export const TagObject = Type.Object({
  name: Type.String(),
  category: StringEnum(TAG_CATEGORIES),
  postsCount: Type.Integer(),
  description: Type.String({ description: 'Plain text, up to 10,000 characters' }),
  aliases: Type.Array(Type.String(), { description: 'Names that are aliases of this tag (alphabetical)' }),
  implies: Type.Array(Type.String(), { description: "The tags this tag implies: a post tagged with it is given them too (the tag's implications)" }),
  impliedBy: Type.Array(Type.String(), { description: 'The tags that imply this one (the implications whose consequent it is)' }),
  createdAt: Timestamp,
});

export const TagPatched = Type.Object({
  ...TagObject.properties,
  job: Type.Optional(
    Type.Object(
      { id: Id },
      {
        description:
          'After a rename of a tag with more than 1,000 posts (ALIAS_RETAG_NOW): the background job that writes the new name into its posts (GET /api/jobs/<id>). Searches and writes read the old name as the tag at once; a post the job has not reached yet shows the old name in its `tags`.',
      },
    ),
  ),
});

export const TagPatch = Type.Object(
  {
    category: Type.Optional(StringEnum(TAG_CATEGORIES)),
    description: Type.Optional(Type.String({ maxLength: MAX_TAG_DESCRIPTION, description: 'Plain text (no markup is rendered)' })),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A new name (the tag name rules apply); the old name stays as an alias of the tag. Refused when the name is already a tag or an alias',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TagPatch = Static<typeof TagPatch>;

export const NewTagAlias = Type.Object(
  {
    from: Type.String({ minLength: 1, maxLength: 200, description: 'The alias name' }),
    to: Type.String({ minLength: 1, maxLength: 200, description: 'The tag it stands for (created when missing)' }),
  },
  { additionalProperties: false },
);
export type NewTagAlias = Static<typeof NewTagAlias>;

export const TagAlias = Type.Object({
  from: Type.String(),
  to: Type.String(),
  createdAt: Timestamp,
  creator: Type.Union([Type.Object({ username: Type.String() }), Type.Null()], { description: 'Null when the account is gone' }),
});

export const TagAliasCreated = Type.Object({
  ...TagAlias.properties,
  job: Type.Optional(
    Type.Object(
      { id: Id },
      {
        description:
          'When posts are tagged `from`: the background job that moves them to `to` (GET /api/jobs/<id>). Writes and searches read `from` as `to` at once; a post the job has not reached yet still carries the old tag `from` on its page, and a search by either name finds it all along (the job runs at once, a batch of posts at a time).',
      },
    ),
  ),
});

export const TagAliasListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export type TagAliasListQuery = Static<typeof TagAliasListQuery>;

export const TagAliasList = Type.Object({
  aliases: Type.Array(TagAlias, { description: 'Newest first' }),
  pagination: Type.Object({ total: Type.Integer(), page: Type.Integer(), perPage: Type.Integer(), totalPages: Type.Integer() }),
});

export const AliasFromParams = Type.Object({ from: Type.String({ minLength: 1, maxLength: 200 }) });
