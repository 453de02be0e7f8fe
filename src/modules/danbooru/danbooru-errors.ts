import { registerErrorShape } from '../../core/errors.ts';

/**
 * Danbooru's error answers: `{ success: false, error, message }`, `error` naming the kind of
 * failure as Danbooru's own class names do, and its statuses: what we answer 400 (a bad parameter
 * or query) and 409 (a conflict) are 422 there.
 */
const KINDS: Record<number, string> = {
  401: 'SessionLoader::AuthenticationFailure',
  403: 'User::PrivilegeError',
  404: 'ActiveRecord::RecordNotFound',
  410: 'PaginationExtension::PaginationError',
  422: 'ArgumentError',
  429: 'RateLimiter::RateLimitError',
  500: 'InternalServerError',
  503: 'ActiveRecord::QueryCanceled',
};

/** Danbooru's paths: `.json` at the root, never under our /api. */
const DANBOORU_PATHS = /^\/(?!api\/).*\.json$/;

const STATUS: Record<number, number> = { 400: 422, 409: 422 };

export function registerDanbooruErrors(): void {
  registerErrorShape(
    'danbooru',
    (status, message) => {
      const theirs = STATUS[status] ?? status;
      return { status: theirs, body: { success: false, error: KINDS[theirs] ?? 'Error', message } };
    },
    DANBOORU_PATHS,
  );
}
