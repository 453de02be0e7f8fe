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
    avatar: avatarUrl(deps.config, user.avatar_path),
    createdAt: iso(user.created_at),
    stats: { uploads: Number(user.uploads), comments: Number(user.comments), favorites: Number(user.favorites), likes: Number(user.likes) },
  };
}
