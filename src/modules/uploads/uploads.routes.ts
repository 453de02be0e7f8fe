import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { AppError } from '../../core/errors.ts';
import { errors, Id, RelativePath, StringEnum } from '../../core/schemas.ts';
import { MEDIA_TYPES } from '../posts/posts.schemas.ts';
import * as uploads from './uploads.service.ts';

const Uploaded = Type.Object({
  message: Type.String(),
  post: Type.Object({
    id: Id,
    title: Type.String(),
    imageUrl: RelativePath,
    thumbnailUrl: RelativePath,
    mediaType: StringEnum(MEDIA_TYPES),
  }),
});

const UPLOAD_TEXT = `multipart/form-data with:
- \`file\` (required): JPEG, PNG, GIF, WebP or AVIF image (animated GIF/WebP too), or MP4/WebM video.
  Limits: 50 MB per image, 200 MB per video, 50 megapixels, 10 minutes (settings MAX_IMAGE_MB,
  MAX_VIDEO_MB, MAX_IMAGE_MEGAPIXELS, MAX_VIDEO_SECONDS). Over a limit: 413; any other type: 415.
- \`title\`: up to 200 characters; defaults to the file name without extension.
- \`tags\`: comma-separated; lowercased, inner spaces become \`_\`, 1-64 characters each, at most 64.
- \`contentRating\`: safe, sketchy or unsafe; defaults from \`isNSFW\` (true -> unsafe, else safe).
- \`isNSFW\`: true or false; true with contentRating safe is a 400.
- \`description\`: optional text, becomes the post's \`content\`.
The same bytes uploaded again: 409 with the existing \`postId\`. EXIF/XMP/IPTC metadata (GPS
included) is stripped from what is served; video metadata too.`;

export function uploadsRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/api/upload', {
    schema: {
      summary: 'Upload an image or video (session or API key)',
      description: UPLOAD_TEXT,
      tags: ['posts'],
      consumes: ['multipart/form-data'],
      response: { 201: Uploaded, ...errors(400, 401, 403, 409, 413, 415, 429) },
    },
    config: { auth: 'user', limit: 'upload' },
  }, async (req, reply) => {
    if (!req.isMultipart()) throw new AppError(415, 'Send the upload as multipart/form-data');
    return reply.code(201).send(await uploads.upload(deps, deps.media, viewerOf(req), req));
  });
}
