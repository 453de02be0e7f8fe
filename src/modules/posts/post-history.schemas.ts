import { Type, type Static } from 'typebox';
import { Id, RATINGS, StringEnum, Timestamp } from '../../core/schemas.ts';

export const PostVersion = Type.Object({
  version: Type.Integer({ description: 'From 1 (the post as uploaded), one more for each change' }),
  editor: Type.Union([Type.String(), Type.Null()], {
    description:
      "Who made the change, by username: version 1's is the uploader. null for a change the system made: an implication's backfill or an alias moving a tag's posts (a moderator's bulk tag edit names the moderator)",
  }),
  createdAt: Timestamp,
  title: Type.String(),
  tags: Type.Array(Type.String(), { description: 'The tag names as they were then, implied tags included' }),
  contentRating: StringEnum(RATINGS),
  source: Type.Union([Type.String(), Type.Null()]),
  parentId: Type.Union([Id, Type.Null()], { description: 'The parent then; it may have been deleted since' }),
});

export const PostHistory = Type.Object(
  { versions: Type.Array(PostVersion, { description: 'Oldest first' }) },
  {
    description:
      "A post's title, tags, rating, source and parent after each change of one of them (an edit, a revert, a moderator's bulk tag edit, an implication's backfill, an alias moving a tag's posts, the parent's deletion). " +
      'A tag renamed changes no version: older versions keep the name as it was. A post never changed has version 1 alone. ' +
      'For a post uploaded before histories were kept, version 1 is the post as it was at its first change since',
  },
);

export const RevertBody = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The version whose fields the post takes again' }) },
  { additionalProperties: false },
);
export type RevertBody = Static<typeof RevertBody>;
