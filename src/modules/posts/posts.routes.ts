import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { errors, sendJsonText, Message, PostIdParams } from '../../core/schemas.ts';
import { BulkTags, BulkTagsStarted, PostDetail, PostDetailQuery, PostDetailWithNeighbours, PostListQuery, PostSearchList, PostPatch } from './posts.schemas.ts';
import { viewerOf } from '../../core/auth.ts';
import { deletePost, editPost } from './posts.edit.ts';
import type { PostsService } from './posts.service.ts';
import { bulkTags } from './posts.bulk-tags.ts';
import { PostHistory, RevertBody } from './post-history.schemas.ts';
import { postHistory, revertPost } from './post-history.ts';

export function postsRoutes(app: TypedApp, deps: Deps, posts: PostsService): void {
  // The service writes the JSON itself (the response schema is what it follows, and documents it).
  app.get(
    '/api/posts',
    {
      schema: {
        summary: 'List posts, filtered, searched and sorted',
        description:
          "The viewer's personal filters apply: a member's (session or API key) blacklist and ratings shown (GET|PUT /api/users/me/preferences), a visitor's ratings from the VISITOR_RATINGS setting (default safe only). " +
          'The list is `request AND rating:(shown) AND NOT (entry1 OR entry2 ...)`; totalPosts counts it, and hiddenPosts says how many the filters left out. ' +
          'A request that names a rating itself (contentRating=, or `rating:` anywhere in `q`) is answered in that rating whatever the ratings shown are; the blacklist still applies. ' +
          'They apply to this list and to the neighbours GET /api/posts/<id>?neighbours= gives in it; not to the post itself (a blacklist filters lists, not links), favorites, similar posts, pools, or the Danbooru-compatible /posts.json (Danbooru clients apply blacklists themselves)',
        tags: ['posts'],
        querystring: PostListQuery,
        response: { 200: PostSearchList, ...errors(400, 401, 429, 503) },
      },
      config: { limit: 'posts' },
    },
    async (req, reply) => sendJsonText(reply, await posts.listFor(req.viewer, req.query)),
  );

  app.get(
    '/api/posts/:id',
    {
      schema: {
        summary: 'One post (and, with `neighbours`, the posts around it in a list)',
        tags: ['posts'],
        params: PostIdParams,
        querystring: PostDetailQuery,
        response: { 200: PostDetailWithNeighbours, ...errors(400, 401, 404, 429) },
      },
      config: { limit: 'post' },
    },
    async (req, reply) => {
      const post = await posts.get(req.params.id, req.viewer, req.query);
      return Buffer.isBuffer(post) ? sendJsonText(reply, post) : post;
    },
  );

  app.post(
    '/api/posts/bulk-tags',
    {
      schema: {
        summary: 'Add and remove tags on every post a search matches (moderators), in a background job',
        description:
          'The posts are those `q` matches when the request is made: a post that stops matching before the job reaches it is still edited, and one that starts matching is not. ' +
          'Each gets its tags + `add` - `remove` through the same path as an edit (aliases read as their targets; tag counts move). ' +
          'A name in both `add` and `remove` (after aliases), or neither list with a tag, is a 400; a query matching no post gives a job that is done with total 0. ' +
          'Answered 202 `{ job }`: follow it at GET /api/jobs/<id>.',
        tags: ['posts'],
        body: BulkTags,
        response: { 202: BulkTagsStarted, ...errors(400, 401, 403, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'moderation' },
    },
    async (req, reply) => reply.code(202).send(await bulkTags(deps, viewerOf(req), req.body)),
  );

  app.patch(
    '/api/posts/:id',
    {
      schema: {
        summary: 'Edit a post: title, content, tags, contentRating, source, parentId (its uploader or a moderator)',
        description:
          "A change of title, tags, contentRating, source or parentId adds a version to the post's history (GET /api/posts/<id>/history) with the caller as its editor; a change of content alone adds none.",
        tags: ['posts'],
        params: PostIdParams,
        body: PostPatch,
        response: { 200: PostDetail, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'posts:write' },
    },
    async (req) => editPost(deps, viewerOf(req), req.params.id, req.body),
  );

  app.get(
    '/api/posts/:id/history',
    {
      schema: {
        summary: "A post's versions: its title, tags, rating, source and parent after each change (anyone)",
        tags: ['posts'],
        params: PostIdParams,
        response: { 200: PostHistory, ...errors(401, 404, 429) },
      },
      config: { limit: 'post' },
    },
    async (req) => postHistory(deps, req.params.id),
  );

  app.post(
    '/api/posts/:id/revert',
    {
      schema: {
        summary: "Give a post a version's title, tags, rating, source and parent again (its uploader or a moderator)",
        description:
          'Written as an edit by the caller: tags through the same path (aliases read as their targets, tag counts move; tags implied now are added), and a new version, equal to the one asked for, when anything changed (none when the post already has its fields). ' +
          'A parent deleted since is dropped; a parent that has become a descendant of the post is a 400 naming `parentId`. A version the post does not have is a 400 naming `version`. ' +
          "A moderator's revert of someone else's post is in the audit log as `post.edit` with details `{ revert: N }`.",
        tags: ['posts'],
        params: PostIdParams,
        body: RevertBody,
        response: { 200: PostDetail, ...errors(400, 401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'posts:write' },
    },
    async (req) => revertPost(deps, viewerOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/posts/:id',
    {
      schema: {
        summary: 'Delete a post and its media (its uploader or a moderator)',
        description: 'Its children lose their parent: each gets a version (parentId null) with the caller as its editor.',
        tags: ['posts'],
        params: PostIdParams,
        response: { 200: Message, ...errors(401, 403, 404, 429) },
      },
      config: { auth: 'user', limit: 'write', scope: 'posts:write' },
    },
    async (req) => deletePost(deps, viewerOf(req), req.params.id, posts.held),
  );
}
