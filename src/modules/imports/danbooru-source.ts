import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ownedName } from '../../storage/owner.ts';
import { SERVICE_VERSION } from '../../version.ts';
import { readBoard, type Seen } from './danbooru-board.ts';
import { commentReader, type PageComments } from './danbooru-comments.ts';
import { completionOrder } from './danbooru-concurrency.ts';
import { BoardRefusedError, type DanbooruHttp, danbooruHttp } from './danbooru-http.ts';
import { fileOf, idOf, isObject, itemFields, type Json, mayHaveComments, type PostFile } from './danbooru-post.ts';
import { type ImportSource, type SourceEntry, SourceError } from './import-item.ts';

/**
 * `imageboard import danbooru URL`: the posts of a board speaking Danbooru's API (Danbooru itself,
 * its forks, this board's own /posts.json), read straight from it. Posts come a page of 200 at a
 * time, walking down by id as gallery-dl does (`page=b<lowest id so far>`); each page's files are
 * downloaded a few at once into temporary files, and its comments asked for in one request.
 */

export interface DanbooruSourceOptions {
  /** The board's address, with a path when its API is under one (`http://host/danbooru`). */
  url: string;
  /** A Danbooru search (`--tags`); none reads the whole board. */
  tags?: string;
  login?: string;
  apiKey?: string;
  /** Requests in flight at most, file downloads included (default 4). */
  inFlight?: number;
  /** Where downloads are written, as temporary files the writer removes. */
  tmpDir: string;
  fetch?: typeof fetch;
  userAgent?: string;
  /** Tries after the first, for an answer 429/502/503/504 or a network failure (default 5). */
  maxRetries?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /**
   * Whether each file is checked against the md5 its post gives (default true). This board's own
   * API gives the md5 of the bytes as uploaded but serves them with their metadata stripped, so
   * its JPEGs with EXIF would all fail the check: an import from it needs this off.
   */
  verifyMd5?: boolean;
}

/** The API root without query or trailing slash, and the origin its posts are imported under (`host/path`). */
export function boardOf(url: string): { base: URL; origin: string } {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new SourceError(`not a web address: ${url}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new SourceError(`not an http(s) address: ${url}`);
  base.search = '';
  base.hash = '';
  base.username = '';
  base.password = '';
  base.pathname = base.pathname.replace(/\/+$/, '') || '/';
  const origin = base.pathname === '/' ? base.host : `${base.host}${base.pathname}`;
  return { base, origin };
}

/** The posts pages of `query`, newest first, each holding only posts below the previous page's lowest id. */
async function* postPages(http: DanbooruHttp, base: URL, query: string, signal: AbortSignal): AsyncGenerator<{ id: number; post: Json }[]> {
  let below: number | null = null;
  for (;;) {
    const answer = await http.json('/posts.json', { tags: query || undefined, limit: 200, page: below === null ? undefined : `b${below}` }, signal);
    if (answer === null) throw new SourceError(`${base} has no /posts.json: is it the root of a Danbooru-compatible API?`);
    if (!Array.isArray(answer)) throw new SourceError(`${base}/posts.json did not answer a list of posts`);
    const posts = answer.flatMap((post) => {
      const id = isObject(post) ? idOf(post.id) : null;
      return id !== null && (below === null || id < below) ? [{ id, post: post as Json }] : [];
    });
    // Not a short page: a board may give fewer than asked. An empty one, or one that went no lower (a board ignoring `page`).
    if (posts.length === 0) return;
    yield posts;
    below = Math.min(...posts.map((p) => p.id));
  }
}

export function danbooruSource(opts: DanbooruSourceOptions): ImportSource {
  const { base, origin } = boardOf(opts.url);
  const query = opts.tags?.trim() ?? '';
  const inFlight = Math.max(1, opts.inFlight ?? 4);
  const verifyMd5 = opts.verifyMd5 ?? true;
  const http = danbooruHttp({
    base,
    login: opts.login,
    apiKey: opts.apiKey,
    inFlight,
    fetch: opts.fetch ?? fetch,
    userAgent: opts.userAgent ?? `imageboard-import/${SERVICE_VERSION}`,
    maxRetries: opts.maxRetries ?? 5,
    now: opts.now ?? Date.now,
    sleep: opts.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })),
  });
  const comments = commentReader(http);
  const seen: Seen = { tags: new Map(), posts: new Set() };
  const problem = (label: string, reason: string): SourceEntry => ({ kind: 'problem', problem: { label, reason } });

  async function fetchPost(id: number, post: Json, file: PostFile, signal: AbortSignal): Promise<SourceEntry> {
    const fields = itemFields(origin, id, post);
    // Named for this process: a run killed mid-download leaves files the next start clears (recover.ts).
    const dest = path.join(opts.tmpDir, ownedName(`download.${file.ext}`));
    let got: { md5: string };
    try {
      got = await http.download(file.url, dest, signal);
    } catch (err) {
      if (err instanceof BoardRefusedError || signal.aborted) throw err;
      return problem(fields.label, `the download failed: ${(err as Error)?.message ?? err}`);
    }
    if (verifyMd5 && file.md5 !== null && got.md5 !== file.md5) {
      await fs.rm(dest, { force: true });
      return problem(
        fields.label,
        `the file's MD5 is ${got.md5}, the post says ${file.md5}: damaged or not the post's file (${file.url}); a board that strips metadata from uploads serves other bytes than it hashed (--no-md5-check)`,
      );
    }
    return { kind: 'post', item: { ...fields, file: dest, temporary: true, md5: verifyMd5 ? file.md5 : null, comments: [] } };
  }

  function remember(entry: SourceEntry, byPost: PageComments['byPost']) {
    if (entry.kind !== 'post') return;
    const item = entry.item;
    item.comments = byPost.get(Number(item.originId)) ?? [];
    seen.posts.add(item.originId!);
    for (const t of item.tags) if (!seen.tags.has(t.name) || seen.tags.get(t.name) === null) seen.tags.set(t.name, t.category);
  }

  async function* entries(): AsyncGenerator<SourceEntry> {
    // Aborted when the reader stops early, so downloads still running stop too (and their files go).
    const stop = new AbortController();
    const forward = () => stop.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', forward, { once: true });
    if (opts.signal?.aborted) forward();
    try {
      for await (const page of postPages(http, base, query, stop.signal)) {
        const jobs: { id: number; post: Json; file: PostFile }[] = [];
        for (const { id, post } of page) {
          const file = fileOf(post, base);
          if (file) jobs.push({ id, post, file });
          else yield problem(`${origin} #${id}`, 'no file_url (restricted or deleted post)');
        }
        const commented = jobs.filter((j) => mayHaveComments(j.post)).map((j) => j.id);
        const pending = comments.forPosts(commented, stop.signal);
        // Awaited with the first download; until then its failure must not count as unhandled.
        pending.catch(() => {});
        const downloads = completionOrder(jobs, inFlight * 2, (j) => fetchPost(j.id, j.post, j.file, stop.signal), {
          onStop: () => stop.abort(),
          discard: async (entry) => {
            if (entry.kind === 'post') await fs.rm(entry.item.file, { force: true });
          },
        });
        for await (const entry of downloads) {
          remember(entry, (await pending).byPost);
          yield entry;
        }
        const { problem: why } = await pending;
        if (why) yield problem(`${origin} comments of #${page.at(-1)!.id}-#${page[0].id}`, why);
      }
    } finally {
      opts.signal?.removeEventListener('abort', forward);
    }
  }

  return {
    async total() {
      try {
        const answer = await http.json('/counts/posts.json', { tags: query || undefined }, opts.signal);
        const n = isObject(answer) && isObject(answer.counts) ? answer.counts.posts : null;
        return typeof n === 'number' && Number.isFinite(n) ? n : null;
      } catch (err) {
        // Only the refused login matters here: the import would fail on it next.
        if (err instanceof BoardRefusedError) throw err;
        return null;
      }
    },
    entries,
    board: () => readBoard(http, seen, { origin, filtered: query !== '', signal: opts.signal }),
  };
}
