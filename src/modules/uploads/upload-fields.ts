import { RATINGS, type Rating } from '../../core/schemas.ts';
import path from 'node:path';
import { AppError, type FieldError } from '../../core/errors.ts';
import { parseTagList, type TagInput } from '../tags/tag-name-rules.ts';
import { parseParentId, parseSource } from '../posts/post-family.ts';

export const MAX_TITLE = 200;
export const MAX_DESCRIPTION = 10_000;
export const UPLOAD_FIELDS = ['title', 'tags', 'contentRating', 'isNSFW', 'description', 'source', 'parentId'] as const;

export interface UploadMeta {
  title: string;
  description: string;
  tags: TagInput;
  rating: Rating;
  source: string | null;
  parentId: number | null;
}

const TRUE = ['true', '1', 'on', 'yes'];
const FALSE = ['false', '0', 'off', 'no', ''];

/**
 * Title defaults to the file name without extension; contentRating defaults from isNSFW
 * (true -> unsafe, else safe); isNSFW true with contentRating safe is refused.
 */
export function parseUploadFields(fields: Record<string, string>, filename: string): UploadMeta {
  const errors: FieldError[] = [];
  const title = (fields.title ?? '').trim() || path.parse(filename).name.trim() || 'untitled';
  if ([...title].length > MAX_TITLE) errors.push({ field: 'title', message: `at most ${MAX_TITLE} characters` });
  const description = fields.description ?? '';
  if ([...description].length > MAX_DESCRIPTION) errors.push({ field: 'description', message: `at most ${MAX_DESCRIPTION} characters` });
  const { errors: tagErrors, ...tags } = parseTagList(fields.tags ?? '');
  for (const message of tagErrors) errors.push({ field: 'tags', message });

  let nsfw = false;
  const rawNsfw = fields.isNSFW?.trim().toLowerCase();
  if (rawNsfw !== undefined) {
    if (TRUE.includes(rawNsfw)) nsfw = true;
    else if (!FALSE.includes(rawNsfw)) errors.push({ field: 'isNSFW', message: 'must be true or false' });
  }
  let rating: Rating = nsfw ? 'unsafe' : 'safe';
  const rawRating = fields.contentRating?.trim();
  if (rawRating) {
    if (!(RATINGS as readonly string[]).includes(rawRating)) errors.push({ field: 'contentRating', message: `must be one of: ${RATINGS.join(', ')}` });
    else if (nsfw && rawRating === 'safe') errors.push({ field: 'contentRating', message: 'cannot be safe when isNSFW is true' });
    else rating = rawRating as Rating;
  }
  const source = collect(errors, () => parseSource(fields.source ?? null));
  const parentId = collect(errors, () => parseParentId(fields.parentId ?? null));
  if (errors.length) {
    throw new AppError(400, errors.map((e) => `field '${e.field}' ${e.message}`).join('; '), { details: errors });
  }
  return { title: [...title].slice(0, MAX_TITLE).join(''), description, tags, rating, source, parentId };
}

/** A field's value, or null with its 400's details added to `errors`. */
function collect<T>(errors: FieldError[], parse: () => T): T | null {
  try {
    return parse();
  } catch (err) {
    const details = err instanceof AppError ? (err.extra.details as FieldError[] | undefined) : undefined;
    if (!details) throw err;
    errors.push(...details);
    return null;
  }
}
