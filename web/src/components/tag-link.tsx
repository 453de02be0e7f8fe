import type { TagCategory } from '../api/types.ts';
import { categoryClass } from '../lib/tag-categories.ts';

/**
 * A tag as boorus show it: a "?" to its page (Danbooru's wiki link), then its name in its
 * category's colour, linking to its search. The "?" says where it leads, on hover and to a
 * screen reader, since its one character does not.
 */
export function TagLink({ name, category }: { name: string; category: TagCategory }) {
  return (
    <span>
      <a
        href={`/tags/${encodeURIComponent(name)}`}
        class="tag-about"
        title={`About ${name}: the tag's page, with what it means, its other names and the tags it implies`}
        aria-label={`About ${name} (the tag's page)`}
      >
        ?
      </a>{' '}
      <a href={`/?tag=${encodeURIComponent(name)}`} class={categoryClass(category)} title={`Search for posts tagged ${name}`}>
        {name}
      </a>
    </span>
  );
}
