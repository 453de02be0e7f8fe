// While tags are typed as a list, the tags they imply are added to it (as the server would add
// them on save), so the writer sees them and can take a wrong tag back out before saving.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { TagImplicationList } from '../api/types.ts';

/** A tag name as the server reads one typed for a post: lower case, spaces as `_`, a category prefix left off. */
const asTag = (typed: string) =>
  typed
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '_')
    .replace(/^(artist|art|copyright|copy|character|char|general|gen|meta):/, '');

/**
 * What a tag implies, by name, for a minute (not asked again at each key). Asked of the
 * implications list rather than the tag itself: a tag typed for the first time does not exist,
 * and the list answers that with an empty page where GET /api/tags/<name> is a 404 the console shows.
 */
const known = new Map<string, { at: number; implies: Promise<string[]> }>();
function impliesOf(name: string): Promise<string[]> {
  // Longer than a tag may be: it implies nothing, and the server would refuse the question (400).
  if (name.length > 64) return Promise.resolve([]);
  const hit = known.get(name);
  if (hit && Date.now() - hit.at < 60_000) return hit.implies;
  const implies = api<TagImplicationList>(`/api/tag-implications?from=${encodeURIComponent(name)}&limit=200`).then(
    (r) => r.implications.map((i) => i.to),
    () => [],
  );
  known.set(name, { at: Date.now(), implies });
  if (known.size > 500) known.delete(known.keys().next().value!);
  return implies;
}

/**
 * Watches a comma-separated tag list: what each finished entry (before the last comma) implies
 * is looked up (each tag once a minute) and added to the list when missing from it.
 * Gives the tags added so far.
 */
export function useImpliedTags(value: string, onValue: (v: string) => void, enabled: boolean): string[] {
  const [added, setAdded] = useState<string[]>([]);
  useEffect(() => {
    if (!enabled) return;
    const cut = value.lastIndexOf(',');
    const head = value.slice(0, cut + 1);
    const finished = head.split(',').map(asTag).filter(Boolean);
    if (finished.length === 0) return;
    const all = new Set([...finished, asTag(value.slice(cut + 1))]);
    let live = true;
    (async () => {
      const implied: string[] = [];
      for (const n of new Set(finished)) {
        for (const m of await impliesOf(n)) if (!all.has(m) && !implied.includes(m)) implied.push(m);
      }
      // The list changed meanwhile: the next pass looks again.
      if (!live || implied.length === 0) return;
      // The added tags' own implications are looked up on the next pass: they are finished entries then.
      onValue(`${head}${head.endsWith(' ') ? '' : ' '}${implied.join(', ')}, ${value.slice(cut + 1).trimStart()}`);
      setAdded((a) => [...a, ...implied.filter((m) => !a.includes(m))]);
    })();
    return () => {
      live = false;
    };
  }, [value, enabled]);
  return added;
}
