import type { TagCategory } from '../api/types.ts';
import { categoryClass } from '../lib/tag-categories.ts';

/** A tag as boorus show it: a "?" to its page, then its name in its category's colour, linking to its search. */
export function TagLink({ name, category }: { name: string; category: TagCategory }) {
  return (
    <span>
      <a href={`/tags/${encodeURIComponent(name)}`} class="tag-about" title={`About ${name}`} aria-label={`About ${name}`}>
        ?
      </a>{' '}
      <a href={`/?tag=${encodeURIComponent(name)}`} class={categoryClass(category)}>
        {name}
      </a>
    </span>
  );
}
