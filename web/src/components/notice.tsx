import type { ComponentChildren } from 'preact';

export function ErrorNote({ error, children }: { error?: Error | string | null; children?: ComponentChildren }) {
  if (!error) return null;
  return (
    <p class="note note-error" role="alert">
      {typeof error === 'string' ? error : error.message}
      {children}
    </p>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="note note-quiet" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/**
 * The end of a form that saves: what went wrong, or `saved` once it was saved, and the submit
 * button (disabled while `busy`).
 */
export function SaveFooter({ error, saved, busy = false, label }: { error: Error | string | null; saved: string | false; busy?: boolean; label: string }) {
  return (
    <>
      <ErrorNote error={error} />
      {saved && !error && (
        <p class="note note-ok" role="status">
          {saved}
        </p>
      )}
      <div class="row">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {label}
        </button>
      </div>
    </>
  );
}
