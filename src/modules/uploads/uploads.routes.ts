import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { tmpDirOf } from '../../config.ts';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { fileField, multipartBody } from '../../core/openapi.ts';
import { errors, Id, RelativePath, StringEnum, MEDIA_TYPES, RATINGS } from '../../core/schemas.ts';
import { receiveForm, type ReceivedForm } from './receive.ts';
import { UPLOAD_FIELDS } from './upload-fields.ts';
import * as uploads from './uploads.service.ts';

const Uploaded = Type.Object({
  message: Type.String(),
  post: Type.Object({
    id: Id,
    title: Type.String(),
    imageUrl: RelativePath,
    thumbnailUrl: RelativePath,
    mediaType: StringEnum(MEDIA_TYPES),
    pending: Type.Optional(
      Type.Literal(true, {
        description:
          "Present (true) when the upload waits for a moderator's approval (setting UPLOAD_APPROVAL): until then only you and the moderators see it, at GET /api/posts/<id>; it keeps this id once published. Absent otherwise.",
      }),
    ),
  }),
});

const UPLOAD_TEXT = `multipart/form-data with:
- \`file\` (required): JPEG, PNG, GIF, WebP or AVIF image (animated GIF/WebP too), or MP4/WebM video.
  Limits: 50 MB per image, 200 MB per video, 50 megapixels, 10 minutes (settings MAX_IMAGE_MB,
  MAX_VIDEO_MB, MAX_IMAGE_MEGAPIXELS, MAX_VIDEO_SECONDS). Over a limit: 413; any other type: 415.
- \`title\`: up to 200 characters; defaults to the file name without extension.
- \`tags\`: comma-separated; lowercased, inner spaces become \`_\`, 1-64 characters each, at most 64 (tags implied by the others not counted); the tags they imply are added.
- \`contentRating\`: safe, sketchy or unsafe; defaults from \`isNSFW\` (true -> unsafe, else safe).
- \`isNSFW\`: true or false; true with contentRating safe is a 400.
- \`description\`: optional text, becomes the post's \`content\`.
- \`source\`: optional http or https URL (at most 1,024 characters) where the work comes from.
- \`parentId\`: optional id of an existing post, this post's parent (a 400 naming \`parentId\` when there is no such post).
The same bytes uploaded again: 409 with the existing \`postId\` (of a post waiting for approval: named only to its uploader and the moderators). EXIF/XMP/IPTC metadata (GPS
included) is stripped from what is served; video metadata too.`;

const UPLOAD_FORM = multipartBody(
  {
    file: fileField('The image or video'),
    title: { type: 'string', maxLength: 200, description: 'Defaults to the file name without extension' },
    tags: { type: 'string', description: 'Comma-separated tag names' },
    contentRating: { type: 'string', enum: RATINGS, description: 'Defaults from isNSFW' },
    isNSFW: { type: 'boolean', description: 'true -> contentRating unsafe when not given' },
    description: { type: 'string', description: "The post's content" },
    source: { type: 'string', maxLength: 1024, description: 'An http or https URL: where the work comes from' },
    parentId: { type: 'string', description: 'The id of an existing post: the parent of this one' },
  },
  ['file'],
);

/** Reads the upload's body: the media `file` (to a temporary file) and the known text fields. */
async function readUpload(deps: Deps, req: FastifyRequest): Promise<ReceivedForm> {
  if (!req.isMultipart()) throw new AppError(415, 'Send the upload as multipart/form-data');
  return receiveForm(req, tmpDirOf(deps.config), deps.config.uploads, UPLOAD_FIELDS.length, (part) => {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') badRequest(`unknown file field '${part.fieldname}'; send the media as 'file'`);
    } else if (!UPLOAD_FIELDS.some((name) => name === part.fieldname)) {
      badRequest(`unknown field '${part.fieldname}'; accepted: file, ${UPLOAD_FIELDS.join(', ')}`, [{ field: part.fieldname, message: 'unknown field' }]);
    }
  });
}

export function uploadsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/upload',
    {
      schema: {
        summary: 'Upload an image or video (session or API key)',
        description: UPLOAD_TEXT,
        tags: ['posts'],
        response: { 201: Uploaded, ...errors(400, 401, 403, 409, 413, 415, 429) },
      },
      config: { auth: 'user', limit: 'upload', scope: 'posts:write', swaggerTransform: UPLOAD_FORM },
    },
    async (req, reply) => {
      const viewer = viewerOf(req);
      // The service removes the form's temporary files, so nothing else may come between the two.
      const form = await readUpload(deps, req);
      return reply.code(201).send(await uploads.upload(deps, deps.media, viewer, form));
    },
  );
}
