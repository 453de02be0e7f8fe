import { Type } from 'typebox';
import { RelativePath, Timestamp } from '../../core/schemas.ts';

export const UserProfile = Type.Object({
  username: Type.String(),
  bio: Type.String(),
  avatar: RelativePath,
  createdAt: Timestamp,
  stats: Type.Object(
    {
      uploads: Type.Integer({ description: 'Posts uploaded' }),
      comments: Type.Integer({ description: 'Comments written' }),
      favorites: Type.Integer({ description: 'Posts favorited' }),
      likes: Type.Integer({ description: 'Posts liked' }),
    },
    { description: 'Counts of what the user has done' },
  ),
});
