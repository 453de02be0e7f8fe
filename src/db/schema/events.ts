/**
 * What an entry of the events table says happened (its `kind`), for the live streams
 * (modules/events/). Never renumbered: migration 020 wrote these numbers into the triggers.
 * `ref_id` is the comment for a comment's events, else null. A like's event is its move of the
 * post's like count: several likes counted in one statement are one event.
 */
export const EVENT = {
  postCreated: 1,
  postUpdated: 2,
  postDeleted: 3,
  commentCreated: 4,
  commentDeleted: 5,
  likeAdded: 6,
  likeRemoved: 7,
} as const;

export type EventKind = (typeof EVENT)[keyof typeof EVENT];

/** The columns of a post whose change is an edit a stream reports (counts are not: likes have events of their own). */
export const EDITED_COLUMNS = ['title', 'description', 'tag_string', 'content_rating', 'source', 'parent_id'] as const;
