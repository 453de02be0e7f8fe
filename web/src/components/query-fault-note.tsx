// A search the server could not read, shown in the page where its results would be: the server's
// message and the refused text around its position, the character there marked. In the page's
// flow rather than over it: a box hung under the search field covered the page's heading, its
// filters and the sidebar's. The search box points to it (aria-describedby) by its id.
import type { QueryFault } from '../lib/query-fault.ts';

/** Puts the caret at `at` in the search box whose id is `boxId`. */
function jump(boxId: string, at: number): void {
  const box = document.getElementById(boxId) as HTMLInputElement | null;
  box?.focus();
  box?.setSelectionRange(at, at);
}

export function QueryFaultNote({ boxId, fault }: { boxId: string; fault: QueryFault }) {
  const at = fault.position;
  const from = at === null ? 0 : Math.max(0, at - 30);
  const to = at === null ? 0 : Math.min(fault.q.length, at + 30);
  return (
    <div id={`${boxId}-error`} class="note note-error query-fault" role="alert" data-testid="query-refused">
      <p>
        This search could not be read: {fault.message}
        {at !== null && ` (at character ${at + 1})`}. <a href="/help/search">Search syntax</a>
      </p>
      {at !== null && (
        // biome-ignore lint/a11y/useKeyWithClickEvents: a shortcut for the mouse; the keyboard gets the caret there on focus
        <code class="query-fault-text" data-testid="query-fault-text" onClick={() => jump(boxId, at)}>
          {from > 0 && '…'}
          {fault.q.slice(from, at)}
          <mark>{fault.q[at] ?? ' '}</mark>
          {fault.q.slice(at + 1, to)}
          {to < fault.q.length && '…'}
        </code>
      )}
    </div>
  );
}
