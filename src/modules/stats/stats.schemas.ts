import { Type } from 'typebox';

const publicFields = {
  activeUsers24h: Type.Integer({ description: 'Users seen (signed in, uploading, commenting, reacting) in the last 24 h' }),
  newPosts24h: Type.Integer(),
  newComments24h: Type.Integer(),
  totalPosts: Type.Integer(),
  totalComments: Type.Integer(),
  totalUsers: Type.Integer(),
  totalTags: Type.Integer({ description: 'Tags on at least one post' }),
  serverStatus: Type.String({ description: '`healthy` when the database answers' }),
  version: Type.String({ description: 'Service version (package.json); separate from the API version at GET /api' }),
};

export const PublicStatus = Type.Object(publicFields);

export const SystemStats = Type.Object({
  ...publicFields,
  storage: Type.Object({
    mediaBytes: Type.Integer({ description: 'Bytes of original media files' }),
    files: Type.Object({ image: Type.Integer(), video: Type.Integer() }),
  }),
  uptimeSeconds: Type.Integer(),
});
