import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { AppError } from '../../core/errors.ts';
import { formParts } from '../../core/multipart.ts';
import { fileField, multipartBody } from '../../core/openapi.ts';
import { errors } from '../../core/schemas.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { UserProfile } from './users.schemas.ts';
import { MAX_AVATAR_BYTES, MAX_BIO, updateProfile, type ProfileChange } from './profile-edit.ts';

const ProfileJson = Type.Object(
  { bio: Type.Optional(Type.String({ maxLength: MAX_BIO, description: `Up to ${MAX_BIO} characters` })) },
  { additionalProperties: false },
);

/** Reads `bio` and the `avatar` file from a multipart body. */
async function readMultipart(req: FastifyRequest): Promise<ProfileChange> {
  const change: ProfileChange = {};
  for await (const part of formParts(req, { fileSize: MAX_AVATAR_BYTES, files: 1, fields: 1 })) {
    if (part.type === 'file') {
      if (part.fieldname !== 'avatar') throw new AppError(400, `unknown file field '${part.fieldname}'; expected 'avatar'`);
      const data = await part.toBuffer();
      if (part.file.truncated) throw new AppError(413, `The avatar is larger than ${MAX_AVATAR_BYTES / 1024 / 1024} MB`);
      change.avatar = data;
    } else if (part.fieldname === 'bio') {
      change.bio = String(part.value);
    } else {
      throw new AppError(400, `unknown field '${part.fieldname}'; expected bio or avatar`);
    }
  }
  return change;
}

export function usersMeRoutes(app: TypedApp, deps: Deps, media: MediaStore): void {
  app.patch(
    '/api/users/me',
    {
      schema: {
        summary: 'Edit your profile: JSON { bio }, or multipart with bio and an avatar image (stored as a 256 px WebP)',
        tags: ['users'],
        body: ProfileJson,
        response: { 200: UserProfile, ...errors(400, 401, 403, 413, 415, 429) },
      },
      config: {
        auth: 'user',
        scope: 'account',
        swaggerTransform: multipartBody({
          bio: { type: 'string', maxLength: MAX_BIO, description: `Up to ${MAX_BIO} characters` },
          avatar: fileField('An image; stored as a 256 px WebP'),
        }),
      },
      // A multipart body is a stream read by the handler; give the JSON schema an empty object to check.
      preValidation: async (req) => {
        if (req.isMultipart()) req.body = {};
      },
    },
    async (req) => {
      const change = req.isMultipart() ? await readMultipart(req) : (req.body ?? {});
      return updateProfile(deps, media, viewerOf(req), change);
    },
  );
}
