import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Times are epoch milliseconds (BIGINT); booleans are 0/1 integers on both engines. */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  username_lower: string;
  email: string | null;
  password_hash: string;
  role: string;
  tier: string;
  bio: string;
  avatar_path: string | null;
  created_at: number;
  last_seen_at: number | null;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  key_hash: string;
  key_prefix: string;
  is_active: number;
  created_at: number;
  last_used: number | null;
  revoked_at: number | null;
  /** Space-separated scopes (core/scopes.ts). */
  scopes: string;
  expires_at: number | null;
  /** Space-separated addresses and CIDRs; null: any address. */
  allowed_addresses: string | null;
  last_used_ip: string | null;
}

export interface PostsTable {
  id: Generated<number>;
  uploader_id: number;
  title: string;
  description: string;
  content_rating: string;
  media_type: string;
  mime: string;
  file_size: number;
  width: number;
  height: number;
  duration: number | null;
  is_animated: number;
  sha256: string;
  /** MD5 of the uploaded bytes, 32 lowercase hex (migration 002); null until a post made before it is filled (modules/uploads/md5-fill.ts). */
  md5: ColumnType<string | null, string | null | undefined, string | null>;
  phash: string | null;
  file_path: string;
  thumb_path: string;
  preview_path: string | null;
  /** Video codecs, e.g. `h264,aac`; null for images. */
  codecs: ColumnType<string | null, string | null | undefined, string | null>;
  like_count: number;
  comment_count: number;
  favorite_count: number;
  created_at: number;
  updated_at: number;
  /** The post's tag names, sorted and space-separated (modules/posts/tag-string.ts). */
  tag_string: ColumnType<string, string | undefined, string>;
  /** The post's list item as JSON, before and after its counts; written by triggers (db/schema/list-item.ts). */
  item_head: ColumnType<string, never, never>;
  item_tail: ColumnType<string, never, never>;
  /** Where the work comes from: an http(s) URL, or null (migration 013). */
  source: ColumnType<string | null, string | null | undefined, string | null>;
  /** The parent post, or null; a deleted parent leaves null (migration 013). */
  parent_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the newest comment on the post was made, or null without comments (migration 018); moved with comment_count. */
  last_commented_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
  post_count: number;
  created_at: number;
  /** general, artist, copyright, character or meta (core/tag-categories.ts). */
  category: Generated<string>;
  description: Generated<string>;
}

/** An alias name and the tag it stands for (migration 006). */
export interface TagImplicationsTable {
  from_id: number;
  to_id: number;
  creator_id: number | null;
  created_at: number;
}

export interface TagAliasesTable {
  from_name: string;
  tag_id: number;
  creator_id: number | null;
  created_at: number;
}

export interface PostTagsTable {
  post_id: number;
  tag_id: number;
  /** The post's created_at, copied so tag counts per time window need no join. */
  created_at: number;
}

export interface PoolsTable {
  id: Generated<number>;
  creator_id: number;
  name: string;
  description: string;
  is_public: number;
  post_count: number;
  created_at: number;
  updated_at: number;
}

export interface PoolPostsTable {
  pool_id: number;
  post_id: number;
  position: number;
  added_at: number;
}

export interface CommentsTable {
  id: Generated<number>;
  post_id: number;
  user_id: number;
  parent_id: number | null;
  content: string;
  reply_count: number;
  created_at: number;
}

export interface ReactionsTable {
  user_id: number;
  post_id: number;
  created_at: number;
}

export interface LoginFailuresTable {
  username_lower: string;
  failures: number;
  last_failed_at: number;
  blocked_until: number;
}

export interface CountersTable {
  name: string;
  value: number;
}

export interface TagChangesTable {
  seq: Generated<number>;
  post_id: number;
  /** Bits of CHANGED (schema/tag-changes.ts). */
  what: Generated<number>;
  /** The tag a CHANGED.tagAdded entry added. */
  tag_id: number | null;
}

/** Posts whose like, favourite or comment count moved (migrations/004-count-changes-logged.ts). */
export interface CountChangesTable {
  seq: number;
  post_id: number;
}

/** Background jobs (migrations/007-jobs.ts, modules/jobs/). */
export interface JobsTable {
  id: Generated<number>;
  kind: string;
  state: ColumnType<JobState, JobState | undefined, JobState>;
  /** JSON text, read by the job's kind alone. */
  params: string;
  /** JSON text: where the job has got to; null before its first step. */
  cursor: string | null;
  done: ColumnType<number, number | undefined, number>;
  total: ColumnType<number, number | undefined, number>;
  error: string | null;
  created_by: number | null;
  created_at: number;
  updated_at: number;
  lease_owner: string | null;
  lease_until: number | null;
}

/** The posts a job goes over, chosen when it was made (migrations/009-job-posts.ts). */
export interface JobPostsTable {
  job_id: number;
  post_id: number;
}

/** Changes to tags, aliases and implications (migrations/010-tag-history.ts). */
export interface TagHistoryTable {
  id: Generated<number>;
  tag_id: number;
  other_id: number | null;
  kind: 'tag' | 'alias' | 'implication';
  action: 'create' | 'update' | 'delete';
  user_id: number | null;
  before: string | null;
  after: string | null;
  created_at: number;
}

/** A post's five edited fields after each change to them (migrations/013-post-history.ts). */
export interface PostVersionsTable {
  post_id: number;
  version: number;
  editor_id: number | null;
  created_at: number;
  title: string;
  tag_string: string;
  content_rating: string;
  source: string | null;
  parent_id: number | null;
}

export interface InvitesTable {
  id: Generated<number>;
  code_hash: string;
  note: ColumnType<string, string | undefined, string>;
  created_by: number | null;
  created_at: number;
  expires_at: number | null;
  used_by: number | null;
  used_at: number | null;
}

export interface PasswordResetsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export type ReportState = 'open' | 'resolved' | 'dismissed';

/** Members' reports of posts and comments (migrations/012-moderation.ts). */
export interface ReportsTable {
  id: Generated<number>;
  reporter_id: number;
  target_type: 'post' | 'comment';
  target_id: number;
  reason: string;
  state: ReportState;
  note: string | null;
  settled_by: number | null;
  settled_at: number | null;
  created_at: number;
}

/** The ban in force on a user, if any (migrations/012-moderation.ts). `until` null: permanent. */
export interface UserBansTable {
  user_id: number;
  reason: string;
  until: number | null;
  banned_by: number | null;
  created_at: number;
}

/** Moderator and admin actions (migrations/012-moderation.ts); `details` is JSON text. */
export interface AuditLogTable {
  id: Generated<number>;
  actor_id: number | null;
  actor_name: string | null;
  action: string;
  target: string;
  details: string;
  created_at: number;
}

/** Uploads waiting for a moderator's approval (migrations/015-pending-posts.ts, modules/approval/). */
export interface PendingPostsTable {
  /** Taken from the posts' id sequence: the post's id once published. */
  id: number;
  uploader_id: number;
  sha256: string;
  title: string;
  content_rating: string;
  thumb_path: string;
  /** JSON: { tags: string[], categories: [name, category][] }, the tags the upload asked for. */
  tags: string;
  /** JSON: the posts columns of the upload, without id and tag_string. */
  post: string;
  created_at: number;
}

/** A member's personal filters of post lists (migrations/016-user-preferences.ts): `blacklist` is JSON text, `ratings` a comma list. */
export interface UserPreferencesTable {
  user_id: number;
  blacklist: string;
  ratings: string;
  updated_at: number;
}

/** What an import brought from another board (migrations/019-import-records.ts). */
export interface ImportRecordsTable {
  kind: 'post' | 'comment' | 'pool';
  origin: string;
  origin_id: string;
  local_id: number;
  author: string | null;
  score: number | null;
  fav_count: number | null;
  created_at: number;
}

/** What the live streams read (migrations/020-events.ts): `kind` is one of EVENT (schema/events.ts). */
export interface EventsTable {
  seq: Generated<number>;
  at: Generated<number>;
  kind: number;
  post_id: number;
  ref_id: number | null;
}

/** A member's webhook (migrations/021-webhooks.ts). */
export interface WebhooksTable {
  id: Generated<number>;
  user_id: number;
  url: string;
  events: string;
  q: string | null;
  secret: string;
  after_seq: number;
  failures: Generated<number>;
  disabled_at: number | null;
  created_at: number;
}

/** One event a webhook is to get, and how its sending went (migrations/021-webhooks.ts). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  event_seq: number;
  event: string;
  post_id: number;
  body: string;
  state: Generated<'pending' | 'delivered' | 'failed'>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  next_at: number;
  lease_until: number | null;
  created_at: number;
  delivered_at: number | null;
}

/** A member's saved search, and its feed (migrations/022-saved-searches.ts). */
export interface SavedSearchesTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  q: string;
  after_seq: number;
  created_at: number;
}
export interface SavedSearchPostsTable {
  user_id: number;
  post_id: number;
  seq: number;
}
export interface SavedSearchSeenTable {
  user_id: number;
  seq: number;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface DB {
  counters: CountersTable;
  tag_changes: TagChangesTable;
  count_changes: CountChangesTable;
  login_failures: LoginFailuresTable;
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  posts: PostsTable;
  tags: TagsTable;
  post_tags: PostTagsTable;
  tag_aliases: TagAliasesTable;
  tag_implications: TagImplicationsTable;
  pools: PoolsTable;
  pool_posts: PoolPostsTable;
  comments: CommentsTable;
  likes: ReactionsTable;
  favorites: ReactionsTable;
  jobs: JobsTable;
  job_posts: JobPostsTable;
  tag_history: TagHistoryTable;
  post_versions: PostVersionsTable;
  invites: InvitesTable;
  password_resets: PasswordResetsTable;

  reports: ReportsTable;
  user_bans: UserBansTable;
  audit_log: AuditLogTable;
  pending_posts: PendingPostsTable;
  user_preferences: UserPreferencesTable;
  import_records: ImportRecordsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  saved_searches: SavedSearchesTable;
  saved_search_posts: SavedSearchPostsTable;
  saved_search_seen: SavedSearchSeenTable;
}

export type UserRow = Selectable<UsersTable>;
export type PostRow = Selectable<PostsTable>;
export type NewPost = Insertable<PostsTable>;
export type TagRow = Selectable<TagsTable>;
