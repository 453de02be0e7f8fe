import { Type, type Static } from 'typebox';

/** Danbooru's clients send parameters of their own (`login`, `api_key`, `only`, ...): unknown ones are ignored, not refused. */
const open = { additionalProperties: true } as const;
const text = (description: string) => Type.Optional(Type.String({ maxLength: 1000, description }));
const limit = Type.Optional(
  Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Items a page; default 20, more than 1000 is taken as 1000 (as Danbooru does)' }),
);

/** Danbooru's timestamps: ISO 8601 with milliseconds and an explicit UTC offset. */
const Time = Type.String({ description: 'YYYY-MM-DDTHH:mm:ss.sss+00:00' });
const UserId = Type.Union([Type.Integer(), Type.Null()], { description: 'The moderator who made it; null once their account is gone' });

export const RelationsQuery = Type.Object(
  {
    'search[antecedent_name]': text('Antecedent tag names, separated by spaces or commas (exact, case-insensitive)'),
    'search[consequent_name]': text('Consequent tag names, separated by spaces or commas (exact, case-insensitive)'),
    'search[name_matches]': text('A name on either side, `*` as a wildcard; without one, the whole name (case-insensitive, `_` for spaces)'),
    'search[status]': text('active (or approved): every one; any other status lists nothing, as ours are all in force'),
    limit,
    page: Type.Optional(
      Type.String({
        maxLength: 20,
        description: 'A page number 1-1000 (past 1000: 410). The ids are not in any order, so b<id> and a<id> are refused (422)',
      }),
    ),
  },
  open,
);
export type RelationsQuery = Static<typeof RelationsQuery>;

/** Danbooru's TagAlias and TagImplication: one shape, our two tables. */
const relation = (description: string, idFrom: string) =>
  Type.Object(
    {
      id: Type.Integer({
        description:
          `Derived, as our ${idFrom} has no id column: the first 52 bits of SHA-256 over its key. ` +
          'The same on every request while it exists (and if it is made again alike), never renumbered when others are removed, in no order; ' +
          'two sharing one is a chance of about one in a million at 100,000 of them',
      }),
      antecedent_name: Type.String(),
      consequent_name: Type.String(),
      creator_id: UserId,
      approver_id: Type.Union([Type.Integer(), Type.Null()], {
        description: 'The creator: a moderator makes it and it is in force at once, with no request to approve',
      }),
      forum_topic_id: Type.Null(),
      forum_post_id: Type.Null(),
      status: Type.Literal('active'),
      reason: Type.Literal(''),
      created_at: Time,
      updated_at: Time,
    },
    { description },
  );

export const DanbooruTagAlias = relation(
  "A tag alias as Danbooru's clients read it; listed newest first (created_at, then the antecedent's name), as Danbooru lists them by id",
  "alias (key: antecedent name and the consequent tag's id, so a rename of the tag keeps it)",
);
export const DanbooruTagImplication = relation(
  "A tag implication as Danbooru's clients read it; listed newest first (created_at, then the two tags' ids), as Danbooru lists them by id",
  "implication (key: the two tags' ids, so renames keep it)",
);

export const WikiPagesQuery = Type.Object(
  {
    'search[title]': text('The title (tag name), `*` as a wildcard; without one, the whole title (case-insensitive)'),
    'search[title_normalize]': text('As search[title], after lowercasing and writing spaces as `_`'),
    'search[title_space]': Type.Optional(
      Type.String({ maxLength: 8000, description: 'Exact titles (tag names), separated by spaces: the pages of several tags in one request' }),
    ),
    'search[id]': text('Comma-separated page ids (tag ids)'),
    'search[other_names_match]': text('Ignored: pages here have no other names'),
    limit,
    page: Type.Optional(
      Type.String({
        maxLength: 20,
        description: 'A page number 1-1000 (past 1000: 410), b<id> (pages below the id) or a<id> (above it); newest (highest id) first either way',
      }),
    ),
  },
  open,
);
export type WikiPagesQuery = Static<typeof WikiPagesQuery>;

export const DanbooruWikiPage = Type.Object(
  {
    id: Type.Integer({ description: "The tag's id" }),
    title: Type.String({ description: "The tag's name" }),
    body: Type.String({ description: "The tag's description" }),
    other_names: Type.Array(Type.String(), { description: 'Always empty: aliases are at /tag_aliases.json' }),
    is_deleted: Type.Literal(false),
    is_locked: Type.Literal(false),
    created_at: Type.String({ description: "The tag's creation (YYYY-MM-DDTHH:mm:ss.sss+00:00)" }),
    updated_at: Type.String({ description: 'The last change to its description or name, else its creation (YYYY-MM-DDTHH:mm:ss.sss+00:00)' }),
  },
  { description: "A tag with a description, as Danbooru's wiki page of it; listed by id, highest first (Danbooru's default is updated_at)" },
);

export const WikiPageParams = Type.Object({
  title: Type.String({ maxLength: 200, description: 'A title (tag name; spaces are read as `_`) or, all digits, a page id' }),
});
