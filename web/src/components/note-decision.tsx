// A staff decision on one item of a queue: an optional note (a report's note, a rejection's
// reason) and a button for each way to decide; while one runs every button waits, and a refusal
// is shown beside them. Used by the report queue and the approval queue.
import { useState } from 'preact/hooks';
import { ErrorNote } from './notice.tsx';

export interface Choice {
  label: string;
  primary?: boolean;
  /** Sends the decision with the note as typed, trimmed ('' when none). */
  run(note: string): Promise<unknown>;
}

export function NoteDecision({
  id,
  group,
  noteLabel,
  placeholder,
  choices,
  onDone,
}: {
  id: string;
  group: string;
  noteLabel: string;
  placeholder: string;
  choices: Choice[];
  onDone(): void;
}) {
  const [note, setNote] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const choose = async (c: Choice) => {
    setBusy(true);
    setError(null);
    try {
      await c.run(note.trim());
      onDone();
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  };
  return (
    <div class="row settle" role="group" aria-label={group}>
      <div class="field settle-note">
        <label for={id} class="sr-only">
          {noteLabel}
        </label>
        <input id={id} maxLength={1000} placeholder={placeholder} value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
      </div>
      {choices.map((c) => (
        <button key={c.label} type="button" class={`btn ${c.primary ? 'btn-primary' : 'btn-ghost'} btn-small`} disabled={busy} onClick={() => choose(c)}>
          {c.label}
        </button>
      ))}
      <ErrorNote error={error} />
    </div>
  );
}
