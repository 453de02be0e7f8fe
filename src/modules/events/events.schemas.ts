import { Type, type Static } from 'typebox';
import { PostListQuery } from '../posts/posts.schemas.ts';

const list = PostListQuery.properties;

export const EventQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 1_000,
        description:
          'A search in the query language (docs/search.md; `order:` has no meaning here and is refused): the stream sends the new posts it matches. Empty: every new post',
      }),
    ),
    post: Type.Optional(Type.String({ maxLength: 20, description: "A post id: the stream sends this post's new comments, likes and edits" })),
    // The list's other filters, with q: what a page of GET /api/posts shows new posts of.
    tag: list.tag,
    search: list.search,
    uploader: list.uploader,
    contentRating: list.contentRating,
    minLikes: list.minLikes,
    dateFrom: list.dateFrom,
    dateTo: list.dateTo,
    lastEventId: Type.Optional(
      Type.String({
        maxLength: 15,
        description: 'Resume after this event, for clients that cannot send the Last-Event-ID header (which wins when both are sent)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventQuery = Static<typeof EventQuery>;

export const EVENTS_DESCRIPTION = [
  'A `text/event-stream` ([server-sent events](https://html.spec.whatwg.org/multipage/server-sent-events.html)) that stays open. Give `q` or `post`, not both.',
  '',
  '`?q=QUERY` (with, if wanted, the other filters of `GET /api/posts`: `tag`, `search`, `uploader`, `contentRating`, `minLikes`, `dateFrom`, `dateTo`, so a page of the list can follow its own new posts) sends `post.created` for each new post the query matches, with the post as `GET /api/posts` lists it; `post.updated` (the same item) when a post it sent is edited (title, description, tags, rating, source, parent); `post.deleted` (`{ id }`) when one it sent is deleted.',
  'The viewer’s visibility rules hold as in `GET /api/posts`: posts waiting for approval are not posts yet (they arrive when approved), visitors see the ratings of `VISITOR_RATINGS`, members their own ratings and blacklist (as they were when the stream opened).',
  '',
  "`?post=ID` sends the post's `comment.created` (the comment as `GET /api/posts/<id>/comments` lists it), `comment.deleted` (`{ id, postId }`), `like.added` and `like.removed` (`{ postId, likes }`: the count after it), `post.updated` (the post as `GET /api/posts/<id>` gives it) and `post.deleted`, after which the stream ends.",
  '',
  'Every event has an `id`. A client that reconnects with `Last-Event-ID` (browsers’ EventSource does) gets every event it missed, for as long as events are kept (`EVENTS_KEEP_MINUTES`, at least an hour), on any instance. After such a resume a query stream sends `post.updated` for posts the query matches now and `post.deleted` for every deletion it missed, since what it sent before is not known.',
  'An idle stream gets a comment line (`: keep-alive`) every 25 seconds (`EVENTS_KEEPALIVE_SECONDS`). Opening a stream counts once against the rate limit, whatever it sends; a member holds at most `EVENTS_STREAMS_PER_USER` (10) open streams and an address `EVENTS_STREAMS_PER_IP` (20) on each serving process, past which opening one is a 429.',
].join('\n');
