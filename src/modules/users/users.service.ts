import type { Deps } from '../../core/deps.ts';
import { notFound } from '../../core/errors.ts';
import { avatarUrl } from '../../core/media-paths.ts';
import { iso } from '../../core/schemas.ts';
import * as repo from './users.repo.ts';

export async function getProfile(deps: Deps, username: string) {
  const user = (await repo.findProfile(deps.db, username)) ?? notFound('User', username);
  return {
    username: user.username,
    bio: user.bio,
    avatar: avatarUrl(deps.config, user.avatarPath),
    createdAt: iso(user.createdAt),
    stats: user.stats,
  };
}
