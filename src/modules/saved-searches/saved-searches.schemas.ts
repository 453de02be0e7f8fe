import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../core/schemas.ts';
import { PostListItem } from '../posts/posts.schemas.ts';

const Name = Type.String({ minLength: 1, maxLength: 100, description: '1-100 characters (surrounding spaces trimmed)' });
const Query = Type.String({ minLength: 1, maxLength: 1000, description: 'A search (docs/search.md); `order:` is refused, a feed is newest first' });

export const NewSavedSearch = Type.Object({ name: Name, q: Query }, { additionalProperties: false });
export type NewSavedSearch = Static<typeof NewSavedSearch>;

export const SavedSearchChange = Type.Object({ name: Type.Optional(Name), q: Type.Optional(Query) }, { additionalProperties: false });
export type SavedSearchChange = Static<typeof SavedSearchChange>;

export const SavedSearch = Type.Object({ id: Id, name: Type.String(), q: Type.String(), createdAt: Timestamp });
export const SavedSearchList = Type.Object({ savedSearches: Type.Array(SavedSearch) });
export const SavedSearchIdParams = Type.Object({ id: Type.String({ maxLength: 20 }) });

export const FeedQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 24, description: '0: the counts alone (the header’s badge)' })),
  },
  { additionalProperties: false },
);
export type FeedQuery = Static<typeof FeedQuery>;

export const Feed = Type.Object({
  posts: Type.Array(PostListItem, { description: 'Newest first: the posts that matched any of your saved searches when they were made' }),
  unseen: Type.Integer({ description: 'How many came since you last marked the feed seen' }),
  total: Type.Integer({ description: 'How many the feed holds' }),
});

export const Seen = Type.Object({ unseen: Type.Integer() });
