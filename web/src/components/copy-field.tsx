// A secret shown once (an API key, an invite link): read-only in a field that selects itself,
// a button that copies it (or selects it where the clipboard is refused), and Done.
import { useState } from 'preact/hooks';

interface Props {
  /** The field's id (its label points at it). */
  id: string;
  label: string;
  value: string;
  /** What the copy button says, and what the fallback asks to copy ("key", "link"). */
  copyText: string;
  what: string;
  testId?: string;
  grow?: boolean;
  onDone(): void;
}

export function CopyField({ id, label, value, copyText, what, testId, grow, onDone }: Props) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied(`Press Ctrl+C (or ⌘C) to copy the selected ${what}.`);
    }
  };
  return (
    <>
      <div class="row">
        <label for={id} class="sr-only">
          {label}
        </label>
        <input
          id={id}
          class={grow ? 'mono grow' : 'mono'}
          readOnly
          value={value}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
          data-testid={testId}
        />
        <button type="button" class="btn btn-primary" onClick={copy}>
          {copyText}
        </button>
        <button type="button" class="btn btn-ghost" onClick={onDone}>
          Done
        </button>
      </div>
      {copied && (
        <p class="muted" role="status">
          {copied}
        </p>
      )}
    </>
  );
}
