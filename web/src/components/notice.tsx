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
