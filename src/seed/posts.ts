import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { PostsTable } from '../db/types.ts';
import { contentPath } from '../core/media-paths.ts';
import type { BaseImage } from './images.ts';
import type { MediaJob } from './media-files.ts';
import { postDescription, postTitle } from './names.ts';
import { countUpTo } from './plan.ts';
import { postMark, textChunkSize, withTextChunkParts } from './png-text.ts';
import { permutation, type Random, Zipf } from './random.ts';

const RATINGS = [
  ['safe', 70],
  ['sketchy', 20],
  ['unsafe', 10],
] as const;

/** What a post's hashes are taken of when the seeder writes no files (--no-media, benchmark datasets). */
export const standInContent = (seed: number, id: number) => `seed ${seed} post ${id}`;

/** What a post row needs from the plan. */
export interface PostInputs {
  seed: number;
  postCreated: Float64Array;
  userCreated: Float64Array;
  likes: Int32Array;
  favorites: Int32Array;
  comments: Int32Array;
  /** When each post's newest comment is made (epoch ms); 0 for a post without comments. */
  lastCommented: Float64Array;
  bases: BaseImage[];
}

/**
 * Builds post rows in id order from one random stream. The uploader is drawn with a Zipf law
 * (a few users upload most), among users who had joined by then.
 */
export class PostRows {
  private readonly uploaderRank: Zipf;
  private readonly uploaderOrder: Int32Array;

  constructor(
    private readonly inputs: PostInputs,
    private readonly rng: Random,
  ) {
    this.uploaderRank = new Zipf(inputs.userCreated.length, 1);
    this.uploaderOrder = permutation(inputs.userCreated.length, rng);
  }

  /** Row for post index i (id i + 1), and the media job that writes its files. */
  row(i: number): { row: Insertable<PostsTable>; job: MediaJob } {
    const { rng, inputs } = this;
    const id = i + 1;
    const created = inputs.postCreated[i];
    const baseIndex = rng.int(inputs.bases.length);
    const base = inputs.bases[baseIndex];
    const { sha256, md5 } = this.hashes(base, id);
    const row: Insertable<PostsTable> = {
      id,
      uploader_id: this.uploader(created) + 1,
      title: postTitle(rng),
      description: postDescription(rng),
      content_rating: rng.weighted(RATINGS),
      media_type: 'image',
      mime: 'image/png',
      file_size: base.size + textChunkSize(...postMark(id)),
      width: base.width,
      height: base.height,
      duration: null,
      is_animated: 0,
      sha256,
      md5,
      phash: base.phash,
      file_path: contentPath('originals', sha256, 'png'),
      thumb_path: contentPath('thumbs', sha256, 'webp'),
      preview_path: null,
      like_count: inputs.likes[i],
      comment_count: inputs.comments[i],
      last_commented_at: inputs.lastCommented[i] || null,
      favorite_count: inputs.favorites[i],
      created_at: created,
      updated_at: created,
    };
    return { row, job: { postId: id, base: baseIndex, sha256 } };
  }

  private uploader(at: number): number {
    const user = this.uploaderOrder[this.uploaderRank.sample(this.rng)];
    if (this.inputs.userCreated[user] <= at) return user;
    // Users are in joining order and the first joined before any post, so this is never empty.
    return this.rng.int(countUpTo(this.inputs.userCreated, at));
  }

  /** The real file's hashes; with --no-media, stand-ins that are just as unique. */
  private hashes(base: BaseImage, id: number): { sha256: string; md5: string } {
    const sha256 = createHash('sha256');
    const md5 = createHash('md5');
    const parts = base.png ? withTextChunkParts(base.png, ...postMark(id)) : [standInContent(this.inputs.seed, id)];
    for (const part of parts) {
      sha256.update(part);
      md5.update(part);
    }
    return { sha256: sha256.digest('hex'), md5: md5.digest('hex') };
  }
}
