import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small Danbooru for the import's tests, on 127.0.0.1 only: posts with `b<id>` paging and a cap
 * on `limit`, comments, pools, wiki pages, aliases and implications with numbered pages, counts,
 * and files. It logs every request and counts those in flight; `intercept` injects faults.
 */

export type Json = Record<string, any>;

export interface LoggedRequest {
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Drop the connection instead of answering (a network failure). */
  destroy?: boolean;
}

export interface FakeBoardOptions {
  /** Where the API is under (`/booru`), or nothing for the root. */
  prefix?: string;
  posts?: Json[];
  /** Bytes by path (`/booru/data/1.png`). */
  files?: Record<string, Buffer>;
  comments?: Json[];
  /** null: the board has no such endpoint (404). */
  pools?: Json[] | null;
  aliases?: Json[] | null;
  implications?: Json[] | null;
  wiki?: Json[] | null;
  /** The most posts a page gives, whatever `limit` asks (Danbooru: 200; some boards less). */
  postCap?: number;
  /** Whether comments take `search[post_id]=1,2,3` (this board's own API takes one id). */
  commaLists?: boolean;
  /** Whether wiki pages take `search[title_space]` (default true); a board that does not answers every page. */
  titleSpace?: boolean;
  /** Answer 422 to `only=` on comments, as a board that does not know it might. */
  refuseOnly?: boolean;
  /** The Authorization header every API request must carry (else 401). */
  authorization?: string;
  /** How long each file takes to answer, to see downloads overlap. */
  fileDelayMs?: number;
  /** Called first for every request: a reply replaces the normal answer. */
  intercept?: (path: string, query: URLSearchParams, n: number) => Reply | undefined;
}

export interface FakeBoard {
  url: string;
  requests: LoggedRequest[];
  maxInFlight: number;
  close(): Promise<void>;
}

const allTags = (p: Json) =>
  String(p.tag_string ?? ['general', 'artist', 'copyright', 'character', 'meta'].map((c) => p[`tag_string_${c}`] ?? '').join(' '))
    .split(/\s+/)
    .filter(Boolean);

/** Newest first, a numbered page of `limit` (capped at `cap`). */
function numbered(list: Json[], q: URLSearchParams, cap: number): Json[] {
  const limit = Math.min(Number(q.get('limit') ?? 20), cap);
  const page = Math.max(1, Number(q.get('page') ?? 1));
  return [...list].sort((a, b) => b.id - a.id).slice((page - 1) * limit, page * limit);
}

function postsPage(o: FakeBoardOptions, q: URLSearchParams): Json[] {
  const wanted = (q.get('tags') ?? '').split(/\s+/).filter(Boolean);
  const limit = Math.min(Number(q.get('limit') ?? 20), o.postCap ?? 200);
  const page = q.get('page') ?? '1';
  let list = (o.posts ?? []).filter((p) => wanted.every((t) => allTags(p).includes(t))).sort((a, b) => b.id - a.id);
  if (page.startsWith('b')) list = list.filter((p) => p.id < Number(page.slice(1)));
  else list = list.slice((Number(page) - 1) * limit);
  return list.slice(0, limit);
}

function commentsPage(o: FakeBoardOptions, q: URLSearchParams): Reply {
  if (o.refuseOnly && q.has('only')) return { status: 422, body: JSON.stringify({ success: false, message: 'unknown parameter only' }) };
  const raw = q.get('search[post_id]') ?? '';
  const ids = o.commaLists === false ? (/^\d+$/.test(raw) ? [Number(raw)] : []) : raw.split(',').map(Number);
  const list = (o.comments ?? []).filter((c) => ids.includes(c.post_id));
  // `only` as Danbooru reads it: those fields, `creator` being the user as an object.
  const only = q.get('only')?.split(',');
  const shaped = only ? list.map((c) => Object.fromEntries(only.map((f) => [f, f === 'creator' ? { name: c.creator_name } : c[f]]))) : list;
  return { status: 200, body: JSON.stringify(numbered(shaped, q, 1000)) };
}

function listReply(list: Json[] | null | undefined, q: URLSearchParams, filter: (x: Json) => boolean = () => true): Reply {
  if (list === null) return { status: 404, body: JSON.stringify({ success: false, message: 'not found' }) };
  return { status: 200, body: JSON.stringify(numbered((list ?? []).filter(filter), q, 1000)) };
}

function answer(o: FakeBoardOptions, path: string, q: URLSearchParams): Reply {
  const api = path.slice((o.prefix ?? '').length);
  const json = (body: unknown): Reply => ({ status: 200, body: JSON.stringify(body) });
  switch (api) {
    case '/posts.json':
      return json(postsPage(o, q));
    case '/counts/posts.json':
      return json({
        counts: {
          posts: (o.posts ?? []).filter((p) =>
            (q.get('tags') ?? '')
              .split(/\s+/)
              .filter(Boolean)
              .every((t) => allTags(p).includes(t)),
          ).length,
        },
      });
    case '/comments.json':
      return commentsPage(o, q);
    case '/pools.json':
      return listReply(o.pools, q);
    case '/tag_aliases.json':
      return listReply(o.aliases, q, (a) => !q.get('search[status]') || a.status === q.get('search[status]'));
    case '/tag_implications.json':
      return listReply(o.implications, q, (a) => !q.get('search[status]') || a.status === q.get('search[status]'));
    case '/wiki_pages.json': {
      const titles = o.titleSpace === false ? undefined : q.get('search[title_space]')?.split(' ');
      return listReply(o.wiki, q, (w) => !titles || titles.includes(w.title));
    }
  }
  return { status: 404, body: JSON.stringify({ success: false, message: 'not found' }) };
}

export async function fakeBoard(o: FakeBoardOptions): Promise<FakeBoard> {
  const board: FakeBoard = { url: '', requests: [], maxInFlight: 0, close: async () => {} };
  let inFlight = 0;
  const server = http.createServer(async (req, res) => {
    inFlight++;
    board.maxInFlight = Math.max(board.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    board.requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    const file = o.files?.[url.pathname];
    const isApi = url.pathname.endsWith('.json');
    let reply = o.intercept?.(url.pathname, url.searchParams, board.requests.length);
    if (!reply && isApi && o.authorization !== undefined && req.headers.authorization !== o.authorization) {
      reply = { status: 401, body: JSON.stringify({ success: false, message: 'SessionLoader::AuthenticationFailure' }) };
    }
    if (reply?.destroy) return req.socket.destroy();
    if (!reply && file) {
      if (o.fileDelayMs) await new Promise((r) => setTimeout(r, o.fileDelayMs));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.length) });
      return res.end(file);
    }
    reply ??= answer(o, url.pathname, url.searchParams);
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  board.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${o.prefix ?? ''}`;
  board.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return board;
}
