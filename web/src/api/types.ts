// Shapes the pages use, read from the generated OpenAPI types (schema.d.ts, `npm run web:types`):
// a change in the server's document is a type error here, not a surprise in the browser.
import type { paths } from './schema';

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type Ok<Op> = Op extends { responses: infer R } ? (R extends { 200: infer A } ? JsonOf<A> : R extends { 201: infer B } ? JsonOf<B> : never) : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Get<P extends keyof paths> = paths[P] extends { get: infer Op } ? Ok<Op> : never;
export type Post<P extends keyof paths> = paths[P] extends { post: infer Op } ? Ok<Op> : never;
export type GetQuery<P extends keyof paths> = paths[P] extends { get: infer Op } ? Query<Op> : never;

export type User = Get<'/api/auth/me'>['user'];
export type Registration = Get<'/api/auth/registration'>;
export type PostList = Get<'/api/posts'>;
export type PostItem = PostList['posts'][number];
export type PostQuery = GetQuery<'/api/posts'>;
export type Rating = PostItem['contentRating'];
export type SortBy = NonNullable<PostQuery['sortBy']>;
export type PostDetail = Get<'/api/posts/{id}'>;
export type TagList = Get<'/api/tags'>;
export type Tag = TagList['tags'][number];
export type TagQuery = GetQuery<'/api/tags'>;
export type TagCategory = Tag['category'];
export type TagDetail = Get<'/api/tags/{name}'>;
export type TagImplicationList = Get<'/api/tag-implications'>;
export type TagHistory = Get<'/api/tags/{name}/history'>;
export type TagHistoryEntry = TagHistory['history'][number];
export type PoolList = Get<'/api/pools'>;
export type Pool = PoolList['pools'][number];
export type Profile = Get<'/api/users/{username}'>;
export type Preferences = Get<'/api/users/me/preferences'>;
export type Status = Get<'/api/public/status'>;
export type KeyList = Get<'/api/user/api-keys'>;
export type ApiKey = KeyList['keys'][number];
export type CreatedKey = Post<'/api/user/api-keys'>;
export type Uploaded = Post<'/api/upload'>;

export const RATINGS: Rating[] = ['safe', 'sketchy', 'unsafe'];
export const SORTS: { value: SortBy; label: string }[] = [
  { value: 'newest', label: 'Newest' },
  { value: 'oldest', label: 'Oldest' },
  { value: 'most_liked', label: 'Most liked' },
  { value: 'most_favorited', label: 'Most favorited' },
  { value: 'most_commented', label: 'Most commented' },
];

export type CommentList = Get<'/api/posts/{id}/comments'>;
export type Comment = CommentList['comments'][number];
export type CommentCreated = Post<'/api/comments'>;
export type LikeState = paths['/api/posts/{id}/like'] extends { put: infer Op } ? Ok<Op> : never;
export type FavoriteState = paths['/api/posts/{id}/favorite'] extends { put: infer Op } ? Ok<Op> : never;
export type PoolDetail = Get<'/api/pools/{id}'>;
export type PoolCreated = Post<'/api/pools'>;
export type SimilarList = Get<'/api/posts/{id}/similar'>;
export type PostHistory = Get<'/api/posts/{id}/history'>;
export type PostVersion = PostHistory['versions'][number];

export type ReportList = Get<'/api/moderation/reports'>;
export type Report = ReportList['reports'][number];
export type ReportState = Report['state'];
export type ReportCreated = Post<'/api/reports'>;
export type AuditList = Get<'/api/audit'>;
export type PendingList = Get<'/api/moderation/pending'>;
export type PendingItem = PendingList['posts'][number];
export type AuditEntry = AuditList['entries'][number];
export type AuditAction = AuditEntry['action'];
export type BanState = Get<'/api/admin/users/{username}/ban'>;
export type MemberList = Get<'/api/admin/users'>;
export type Member = MemberList['users'][number];
export type AccountChanged = paths['/api/admin/users/{username}'] extends { put: infer Op } ? Ok<Op> : never;
export type InviteList = Get<'/api/admin/invites'>;
export type Invite = InviteList['invites'][number];
export type InviteCreated = Post<'/api/admin/invites'>;
export type SavedSearchList = Get<'/api/saved-searches'>;
export type SavedSearch = SavedSearchList['savedSearches'][number];
export type Feed = Get<'/api/saved-searches/feed'>;
export type WebhookList = Get<'/api/webhooks'>;
export type Webhook = WebhookList['webhooks'][number];
export type CreatedWebhook = Post<'/api/webhooks'>;
export type DeliveryList = Get<'/api/webhooks/{id}/deliveries'>;
