import { Type, type Static } from 'typebox';
import { RATINGS, StringEnum } from '../../core/schemas.ts';
import { ENTRY_LIMITS, MAX_ENTRIES } from '../../search/filters.ts';

export const Preferences = Type.Object(
  {
    blacklist: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: ENTRY_LIMITS.maxLength,
        description: `A query in the search language of GET /api/posts's \`q\` (wildcards and metatags too; not order:), at most ${ENTRY_LIMITS.maxLength} characters and ${ENTRY_LIMITS.maxTerms} terms`,
      }),
      {
        maxItems: MAX_ENTRIES,
        description: `Posts matching any of these queries are left out of your GET /api/posts lists and searches, whatever the request asks; at most ${MAX_ENTRIES}. Default: none`,
      },
    ),
    ratings: Type.Array(StringEnum(RATINGS), {
      minItems: 1,
      maxItems: RATINGS.length,
      uniqueItems: true,
      description:
        'The ratings your lists show when a request names no rating itself (a contentRating= or a rating: in q wins). Each once, at least one. Default: all three',
    }),
  },
  { additionalProperties: false },
);
export type Preferences = Static<typeof Preferences>;
