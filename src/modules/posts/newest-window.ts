import type { Config } from '../../config.ts';
import { versions } from '../../db/counters.ts';
import type { Database } from '../../db/engine.ts';
import { publicItemJson } from '../../core/media-paths.ts';
import { JsonWriter } from '../../core/json-bytes.ts';
import { pageBytes } from '../../core/schemas.ts';
import type { CountsOf, EngineCore } from '../../search/engine.ts';
import { RebuildOnMisses } from '../../core/rebuild-on-misses.ts';
import { itemPartsOfRange } from './posts.repo.ts';

/** Posts the window holds: the first pages of the newest list, where most of a board's reads go. */
export const WINDOW_POSTS = 2_048;

interface Kept {
  /** The data version its posts were read at (or later: it is read first). */
  version: number;
  high: number;
  /** The stored parts of post `high - i`: head at heads[i]..tails[i], tail at tails[i]..ends[i]; ends[i] 0 when there is no such post. */
  bytes: Buffer;
  heads: Int32Array;
  tails: Int32Array;
  ends: Int32Array;
}

const COMMA = 0x2c;
const OPEN = Buffer.from('{"posts":[');
const LIKES = Buffer.from(',"likes":');
const COMMENTS = Buffer.from(',"comments":');
const FAVORITES = Buffer.from(',"favorites":');

/**
 * The list items of the newest posts as bytes, kept per process: a page of them is copied from
 * here, with the like, comment and favourite counts from the search's kept counts (which follow the count log),
 * instead of joined by the database and sent as a text. Valid at one data version; uploads and
 * edits move it, and the window is read again once its posts have been asked for a few times at
 * the new one. Any page whose posts are not all in it is read from the database as before.
 */
export class NewestWindow {
  private kept: Kept | null = null;
  private readonly rebuilds = new RebuildOnMisses();

  constructor(
    /** The posts' likes, comments and favourites, as the search keeps them. */
    private readonly countsOf: EngineCore['countsOf'],
    private readonly size = WINDOW_POSTS,
  ) {}

  /**
   * The items of `ids` (a page of the search, which ran at `newestId`'s order), written as
   * `{"posts":[...]` for the caller to finish, with the posts it found and the data version; or
   * null when the page is not the window's to answer (the database reads it).
   */
  async items(
    db: Database,
    ids: number[],
    newestId: number,
    urls: Pick<Config, 'mediaPublicUrl'>,
  ): Promise<{ ids: number[]; writer: JsonWriter; version: number } | null> {
    if (ids.length === 0 || !within(ids, newestId - this.size + 1, newestId)) return null;
    const { version, counts: seq } = await versions(db);
    let kept = this.kept;
    if (!kept || kept.version !== version || kept.high !== newestId) {
      if (!(await this.rebuilds.miss(version, () => this.build(db, version, newestId, urls)))) return null;
      kept = this.kept;
      if (!kept || kept.version !== version || kept.high !== newestId) return null;
    }
    return { ...this.write(kept, ids, await this.countsOf(ids, newestId, seq)), version };
  }

  private async build(db: Database, version: number, newestId: number, urls: Pick<Config, 'mediaPublicUrl'>): Promise<void> {
    const rows = await itemPartsOfRange(db, Math.max(1, newestId - this.size + 1), newestId);
    const heads = new Int32Array(this.size);
    const tails = new Int32Array(this.size);
    const ends = new Int32Array(this.size);
    const texts: string[] = [];
    let at = 0;
    for (const r of rows) {
      const i = newestId - Number(r.id);
      const head = publicItemJson(urls, r.item_head);
      heads[i] = at;
      at += Buffer.byteLength(head);
      tails[i] = at;
      at += Buffer.byteLength(r.item_tail);
      ends[i] = at;
      texts.push(head, r.item_tail);
    }
    const bytes = Buffer.from(texts.join(''));
    this.kept = { version, high: newestId, bytes, heads, tails, ends };
  }

  private write(kept: Kept, ids: number[], { likes, comments, favs }: CountsOf): { ids: number[]; writer: JsonWriter } {
    const w = new JsonWriter(pageBytes.take(1024 * ids.length + 512), pageBytes);
    const found: number[] = [];
    w.bytes(OPEN);
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      const i = kept.high - id;
      if (kept.ends[i] === 0) continue;
      if (found.length) w.byte(COMMA);
      found.push(id);
      w.copy(kept.bytes, kept.heads[i], kept.tails[i]);
      w.bytes(LIKES);
      w.number(likes[k]);
      w.bytes(COMMENTS);
      w.number(comments[k]);
      w.bytes(FAVORITES);
      w.number(favs[k]);
      w.copy(kept.bytes, kept.tails[i], kept.ends[i]);
    }
    w.byte(0x5d);
    return { ids: found, writer: w };
  }
}

/** Whether every id lies in low..high. */
function within(ids: number[], low: number, high: number): boolean {
  for (const id of ids) if (id < low || id > high) return false;
  return true;
}
