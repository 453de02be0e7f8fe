import fs from 'node:fs';
import path from 'node:path';
import { tmpDirOf } from '../../config.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import type { Rating } from '../../core/schemas.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { insertPostTagged } from '../posts/posts.repo.ts';
import { tagsForWrite } from '../posts/post-tags.ts';
import { retagPost } from '../posts/posts.retag.ts';
import { MAX_TITLE } from '../uploads/upload-fields.ts';
import { mediaPaths, removeFiles, storeMedia } from '../uploads/process-media.ts';
import { receiveStream, type Received } from '../uploads/receive.ts';
import { checkMedia } from './import-check.ts';
import { importComments } from './import-comments.ts';
import type { ImportItem } from './import-item.ts';
import * as repo from './imports.repo.ts';
import { importTags } from './import-tags.ts';

export interface WriterOptions {
  user: Viewer;
  /** The rating of a post whose source gives none. */
  defaultRating: Rating;
  /** Check everything, write nothing. */
  dryRun: boolean;
  /**
   * Whether a file is checked against the md5 its metadata gives (default true). gallery-dl's
   * sidecars from a board that strips metadata on upload (this one, for one) give the md5 of the
   * bytes as sent, not of the file served: those files need the check off.
   */
  verifyMd5?: boolean;
}

export type Outcome =
  | { status: 'imported'; postId: number | null; warnings: string[] }
  | { status: 'matched'; postId: number; tagsAdded: number; warnings: string[] }
  | { status: 'skipped'; postId: number; reason: string; warnings: string[] }
  | { status: 'failed'; reason: string; warnings: string[] };

/** A child whose parent was not on the board yet when it was written: linked at the end (import-board.ts). */
export interface PendingParent {
  postId: number;
  origin: string;
  parentOriginId: string;
}

const messageOf = (err: unknown) => (err instanceof AppError ? err.message : `${(err as Error).message ?? err}`);

/**
 * Writes one item: imported before (by its origin id, or by its bytes when it has none) is skipped;
 * bytes already on the board (sha256, or md5) are matched and the post gets the item's tags it
 * lacks; anything else is checked and stored exactly as an upload is, and the post, its tags and
 * its import record are one transaction. The media journal covers the files until that commits, so
 * a kill at any moment leaves no orphan file (recoverInterrupted clears it on the next run).
 */
export function createImportWriter(deps: Deps, opts: WriterOptions) {
  const pendingParents: PendingParent[] = [];

  async function previously(item: ImportItem, originId: string): Promise<Outcome | null> {
    const postId = await repo.recordOf(deps.db, 'post', item.origin, originId);
    if (postId === null) return null;
    const post = await repo.findPostParent(deps.db, postId);
    if (!post) return { status: 'skipped', postId, reason: `imported before as post ${postId}, deleted since`, warnings: [] };
    // A run killed before its comments or its parent landed finishes them now.
    const warnings = opts.dryRun ? [] : await importComments(deps, opts.user, item, postId);
    if (post.parent_id === null) noteParent(item, postId);
    return { status: 'skipped', postId, reason: `imported before as post ${postId}`, warnings };
  }

  function noteParent(item: ImportItem, postId: number): void {
    if (item.parentOriginId !== null) pendingParents.push({ postId, origin: item.origin, parentOriginId: item.parentOriginId });
  }

  async function existingPost(file: Received): Promise<number | null> {
    const bySha = await repo.postBySha256(deps.db, file.sha256);
    if (bySha) return bySha.id;
    const byMd5 = await repo.firstPostByMd5(deps.db, file.md5);
    return byMd5?.id ?? null;
  }

  /** The bytes are on the board already: that post gets the tags it lacks, and the record. */
  async function match(item: ImportItem, originId: string, postId: number, warnings: string[]): Promise<Outcome> {
    if (opts.dryRun) return { status: 'matched', postId, tagsAdded: 0, warnings };
    const input = importTags(item.tags);
    const now = deps.clock.now();
    let added = 0;
    try {
      await deps.db.transaction().execute(async (trx) => {
        const more = input.tags.length ? await tagsForWrite(trx, input, now) : new Map<string, number>();
        await retagPost(
          trx,
          postId,
          (tags) => {
            const merged = new Map(tags);
            for (const [name, id] of more) if (!merged.has(name)) merged.set(name, id);
            added = merged.size - tags.size;
            return merged;
          },
          now,
          opts.user.id,
        );
        await repo.addRecord(
          trx,
          { kind: 'post', origin: item.origin, originId, localId: postId, author: item.uploader, score: item.score, favCount: item.favCount },
          now,
        );
      });
    } catch (err) {
      // The same item twice in one source, written side by side: the other one recorded it.
      const before = isUniqueViolation(err) ? await previously(item, originId) : null;
      if (before) return before;
      throw err;
    }
    warnings.push(...(await importComments(deps, opts.user, item, postId)));
    noteParent(item, postId);
    return { status: 'matched', postId, tagsAdded: added, warnings: [...warnings, ...input.warnings] };
  }

  async function create(item: ImportItem, originId: string, file: Received): Promise<Outcome> {
    const input = importTags(item.tags);
    const warnings = [...input.warnings];
    if (opts.dryRun) {
      await checkMedia(file, deps.config.uploads);
      return { status: 'imported', postId: null, warnings };
    }
    const parentId = item.parentOriginId === null ? null : await repo.recordOf(deps.db, 'post', item.origin, item.parentOriginId);
    const title = [...(item.title?.trim() || defaultTitle(item))].slice(0, MAX_TITLE).join('');
    const id = await withMediaJournal(tmpDirOf(deps.config), Object.values(mediaPaths(file)), async () => {
      const stored = await storeMedia(deps.media, file, deps.config.uploads);
      const now = deps.clock.now();
      const createdAt = item.createdAt ?? now;
      try {
        return await deps.db.transaction().execute(async (trx) => {
          const tags = await tagsForWrite(trx, input, now);
          const row = {
            uploader_id: opts.user.id,
            title,
            description: item.description ?? '',
            content_rating: item.rating ?? opts.defaultRating,
            source: item.source,
            parent_id: parentId,
            ...stored.columns,
            like_count: 0,
            comment_count: 0,
            favorite_count: 0,
            created_at: createdAt,
            updated_at: now,
          };
          const id = await insertPostTagged(trx, row, tags);
          await repo.addRecord(
            trx,
            { kind: 'post', origin: item.origin, originId, localId: id, author: item.uploader, score: item.score, favCount: item.favCount },
            now,
          );
          return id;
        });
      } catch (err) {
        // The same bytes landed meanwhile (twice in one source, or an upload): its files are ours too.
        if (isUniqueViolation(err)) return null;
        await removeFiles(deps.media, stored.written);
        throw err;
      }
    });
    if (id === null) {
      const before = await previously(item, originId);
      if (before) return before;
      const postId = await existingPost(file);
      if (postId === null) throw new Error('a unique key refused the post, and no post holds its bytes');
      return match(item, originId, postId, warnings);
    }
    warnings.push(...(await importComments(deps, opts.user, item, id)));
    if (parentId === null) noteParent(item, id);
    return { status: 'imported', postId: id, warnings };
  }

  async function write(item: ImportItem): Promise<Outcome> {
    let file: Received | null = null;
    try {
      if (item.originId !== null) {
        const before = await previously(item, item.originId);
        if (before) return before;
      }
      try {
        file = await receiveStream(fs.createReadStream(item.file), path.basename(item.file), tmpDirOf(deps.config), deps.config.uploads);
      } catch (err) {
        return { status: 'failed', reason: messageOf(err), warnings: [] };
      }
      if (opts.verifyMd5 !== false && item.md5 !== null && item.md5.toLowerCase() !== file.md5) {
        return {
          status: 'failed',
          reason: `the file's MD5 is ${file.md5}, the source says ${item.md5.toLowerCase()}: damaged or not the post's file; a board that strips metadata from uploads serves other bytes than it hashed (--no-md5-check)`,
          warnings: [],
        };
      }
      const originId = item.originId ?? file.sha256;
      if (item.originId === null) {
        const before = await previously(item, originId);
        if (before) return before;
      }
      const existing = await existingPost(file);
      if (existing !== null) return await match(item, originId, existing, []);
      return await create(item, originId, file);
    } catch (err) {
      if (err instanceof AppError) return { status: 'failed', reason: err.message, warnings: [] };
      throw err;
    } finally {
      if (file) await fs.promises.rm(file.tmpPath, { force: true });
      if (item.temporary) await fs.promises.rm(item.file, { force: true });
    }
  }

  return { write, pendingParents };
}

export type ImportWriter = ReturnType<typeof createImportWriter>;

/** A post needs a title: the source's, else where it came from, else the file's name. */
function defaultTitle(item: ImportItem): string {
  if (item.originId !== null && item.origin !== 'file') return `${item.origin} #${item.originId}`;
  return path.parse(item.file).name.trim() || 'untitled';
}
