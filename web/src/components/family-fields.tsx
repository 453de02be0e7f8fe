// The source and parent fields of the upload form and the post editor, each showing the API's
// 400 about it under itself (`details` naming `source` or `parentId`).
import { ApiError, fieldDetail } from '../api/client.ts';

const FIELDS = ['source', 'parentId'] as const;

/** Whether a 400 names source or parentId. */
export const namesFamilyField = (error: Error | null | undefined): boolean => FIELDS.some((f) => fieldDetail(error, f));

/** Whether every field a 400 names is one of these two: then it is shown at the fields, not again in a note. */
export function onlyFamilyFields(error: Error | null | undefined): boolean {
  const details = error instanceof ApiError && error.status === 400 ? (error.body.details ?? []) : [];
  return details.length > 0 && details.every((d) => (FIELDS as readonly string[]).includes(d.field));
}

/** What the parent field holds, as the API takes it: `#12` and ` 12 ` are post 12; empty is none. */
export const parentValue = (text: string): string => text.trim().replace(/^#/, '').trim();

function Field({
  id,
  label,
  hint,
  value,
  onValue,
  message,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onValue(v: string): void;
  message?: string;
}) {
  const note = `${id}-error`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        placeholder={hint}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? note : undefined}
        onInput={(e) => onValue((e.target as HTMLInputElement).value)}
      />
      {message && (
        <p id={note} class="field-error" role="alert">
          {message}
        </p>
      )}
    </div>
  );
}

export function FamilyFields({
  prefix,
  source,
  parent,
  onSource,
  onParent,
  error,
}: {
  prefix: string;
  source: string;
  parent: string;
  onSource(v: string): void;
  onParent(v: string): void;
  error?: Error | null;
}) {
  return (
    <div class="family-fields">
      <Field id={`${prefix}-source`} label="Source" hint="https://…" value={source} onValue={onSource} message={fieldDetail(error, 'source')?.message} />
      <Field
        id={`${prefix}-parent`}
        label="Parent post id"
        hint="e.g. 12"
        value={parent}
        onValue={onParent}
        message={fieldDetail(error, 'parentId')?.message}
      />
    </div>
  );
}
