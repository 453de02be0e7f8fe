// "Report" on a post or a comment: a small reason form, then the answer in words. A second
// report of the same thing while the first is open is the server's 409, said plainly.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { ReportCreated } from '../api/types.ts';
import { useSession } from '../lib/session.ts';
import { ErrorNote } from './notice.tsx';

export function ReportButton({ target, id, link }: { target: 'post' | 'comment'; id: string; link?: boolean }) {
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  if (!user) return null;
  const fieldId = `report-${target}-${id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || !reason.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await api<ReportCreated>('/api/reports', { method: 'POST', json: { [target === 'post' ? 'postId' : 'commentId']: id, reason: reason.trim() } });
      setDone(`Thank you: the moderators will look at this ${target}.`);
      setOpen(false);
      setReason('');
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setDone(`You have already reported this ${target}; the moderators have not settled it yet.`);
        setOpen(false);
      } else setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="report">
      {!open && !done && (
        <button type="button" class={link ? 'link' : 'btn btn-ghost'} onClick={() => setOpen(true)} aria-expanded={false}>
          Report
        </button>
      )}
      {done && (
        <span class="muted" role="status">
          {done}
        </span>
      )}
      {open && (
        <form class="report-form row" onSubmit={submit} aria-label={`Report this ${target}`}>
          <label for={fieldId} class="sr-only">
            Why report this {target}?
          </label>
          <input
            id={fieldId}
            required
            maxLength={1000}
            value={reason}
            autoFocus
            placeholder={`Why report this ${target}?`}
            onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="btn btn-primary btn-small" disabled={busy || !reason.trim()}>
            Send report
          </button>
          <button type="button" class="btn btn-ghost btn-small" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <ErrorNote error={error} />
        </form>
      )}
    </span>
  );
}
