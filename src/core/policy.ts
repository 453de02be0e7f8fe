import type { Viewer } from './deps.ts';
import { forbidden } from './errors.ts';

export const isModerator = (v: Pick<Viewer, 'role'>): boolean => v.role === 'moderator' || v.role === 'admin';

/** The owner of a thing, or a moderator, may change or delete it; anyone else gets 403. */
export function assertOwnerOrModerator(viewer: Viewer, ownerId: number, what: string): void {
  if (viewer.id !== ownerId && !isModerator(viewer)) forbidden(`Only the ${what}'s owner or a moderator may do this`);
}

/** Moderator-only actions (curating tags): anyone else gets 403. */
export function assertModerator(viewer: Pick<Viewer, 'role'>, action: string): void {
  if (!isModerator(viewer)) forbidden(`Only a moderator may ${action}`);
}
