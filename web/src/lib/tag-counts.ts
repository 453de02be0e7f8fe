// Post counts for a post's tags. The API has no "counts of these tags" call, so the counts come
// from one list of the most used tags plus a name search for each tag not in it, remembered for
// the session (a tag's count moves slowly).
import { useEffect, useState } from 'preact/hooks';
import { getCached } from '../api/client.ts';
import type { TagList } from '../api/types.ts';

const known = new Map<string, number>();
let top: Promise<void> | null = null;
const MAX_LOOKUPS = 16;

function remember(list: TagList): void {
  for (const t of list.tags) known.set(t.name, t.postsCount);
}

async function lookup(name: string): Promise<void> {
  const list = await getCached<TagList>(`/api/tags?search=${encodeURIComponent(name)}&limit=5`);
  remember(list);
  if (!known.has(name)) known.set(name, 0);
}

export function useTagCounts(names: string[]): Map<string, number> {
  const [, setVersion] = useState(0);
  const key = names.join('\n');
  useEffect(() => {
    let live = true;
    (async () => {
      top ??= getCached<TagList>('/api/tags?limit=200').then(remember, () => {
        top = null;
      });
      await top;
      if (live) setVersion((v) => v + 1);
      const missing = names.filter((n) => !known.has(n)).slice(0, MAX_LOOKUPS);
      for (let i = 0; i < missing.length && live; i += 4) {
        await Promise.all(missing.slice(i, i + 4).map((n) => lookup(n).catch(() => undefined)));
        if (live) setVersion((v) => v + 1);
      }
    })();
    return () => {
      live = false;
    };
  }, [key]);
  return known;
}
