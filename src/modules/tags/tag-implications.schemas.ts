import { Type, type Static } from 'typebox';
import { Timestamp } from '../../core/schemas.ts';
import { Job } from '../../jobs/jobs.schemas.ts';
import { TagAlias, TagAliasList, TagAliasListQuery } from './tag-detail.schemas.ts';

export const NewTagImplication = Type.Object(
  {
    from: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The implying tag (the antecedent); an alias name stands for its target; created when missing',
    }),
    to: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The implied tag (the consequent); an alias name stands for its target; created when missing, in the category of `from`',
    }),
  },
  { additionalProperties: false },
);
export type NewTagImplication = Static<typeof NewTagImplication>;

export const TagImplication = Type.Object({
  from: Type.String({ description: 'The implying tag' }),
  to: Type.String({ description: 'The implied tag' }),
  createdAt: Timestamp,
  creator: TagAlias.properties.creator,
});

export const TagImplicationQueued = Type.Intersect([
  TagImplication,
  Type.Object({ job: Job }, { description: 'The background job giving existing posts of `from` the tag `to`: follow it at GET /api/jobs/<id>' }),
]);

export const TagImplicationListQuery = Type.Object(
  {
    ...TagAliasListQuery.properties,
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Only the implications with this tag on either side (an alias name stands for its target)' }),
    ),
    from: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Only the implications whose implying tag is this one: the tags it implies directly (an alias name stands for its target). ' +
          'A tag that does not exist implies nothing: an empty list, not a 404 (a tag box asks this of each new tag typed)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TagImplicationListQuery = Static<typeof TagImplicationListQuery>;

export const TagImplicationList = Type.Object({
  implications: Type.Array(TagImplication, { description: 'Newest first' }),
  pagination: TagAliasList.properties.pagination,
});

export const ImplicationParams = Type.Object({ from: Type.String({ minLength: 1, maxLength: 200 }), to: Type.String({ minLength: 1, maxLength: 200 }) });
