import { withQuery } from '../lib/router.ts';

/** Numbered pages as links (so each page has its own URL and Back returns to it). */
export function Pager({ page, totalPages, param = 'page' }: { page: number; totalPages: number; param?: string }) {
  if (totalPages <= 1) return null;
  const href = (p: number) => withQuery({ [param]: p === 1 ? undefined : String(p) });
  const near = new Set([1, totalPages, page - 2, page - 1, page, page + 1, page + 2].filter((p) => p >= 1 && p <= totalPages));
  const pages = [...near].sort((a, b) => a - b);
  const items: (number | 'gap')[] = [];
  pages.forEach((p, i) => {
    if (i > 0 && p - pages[i - 1] > 1) items.push('gap');
    items.push(p);
  });
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <a href={href(page - 1)} rel="prev">
          ‹ Previous
        </a>
      ) : (
        <span class="pager-off" aria-hidden="true">
          ‹ Previous
        </span>
      )}
      {items.map((p, i) =>
        p === 'gap' ? (
          <span key={`g${i}`} class="pager-gap" aria-hidden="true">
            …
          </span>
        ) : (
          <a key={p} href={href(p)} aria-current={p === page ? 'page' : undefined} aria-label={`Page ${p}`}>
            {p}
          </a>
        ),
      )}
      {page < totalPages ? (
        <a href={href(page + 1)} rel="next">
          Next ›
        </a>
      ) : (
        <span class="pager-off" aria-hidden="true">
          Next ›
        </span>
      )}
    </nav>
  );
}
