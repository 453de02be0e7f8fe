import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';
import type { Uploaded } from '../api/types.ts';
import { bytes } from '../lib/format.ts';

export interface Item {
  key: number;
  file: File;
  preview: string;
  title: string;
  state: 'ready' | 'uploading' | 'done' | 'failed';
  progress: number;
  result?: Uploaded['post'];
  error?: ApiError;
}

function explain(err: ApiError): string {
  switch (err.status) {
    case 0:
      return err.message;
    case 401:
      return `${err.message} Your session has ended: sign in again, then retry.`;
    case 413:
      return `Too large: ${err.message}`;
    case 415:
      return `Not a supported file: ${err.message}`;
    default:
      return err.message;
  }
}

export function UploadRow({ item, onTitle, onRemove, onRetry }: { item: Item; onTitle(t: string): void; onRemove(): void; onRetry(): void }) {
  const id = `u-title-${item.key}`;
  const [broken, setBroken] = useState(false);
  const duplicate = item.error?.status === 409 && item.error.body.postId;
  const status = item.error?.status ?? 0;
  const retryable = status === 0 || status === 401 || status === 429 || status >= 500;
  return (
    <li class={`upload-row is-${item.state}`} data-file={item.file.name}>
      {broken ? (
        <span class="upload-thumb upload-thumb-none" aria-hidden="true">
          {item.file.name.split('.').pop()?.slice(0, 4) || '?'}
        </span>
      ) : item.file.type.startsWith('video/') ? (
        <video class="upload-thumb" src={item.preview} muted aria-label={`Preview of ${item.file.name}`} onError={() => setBroken(true)} />
      ) : (
        <img class="upload-thumb" src={item.preview} alt={`Preview of ${item.file.name}`} width={72} height={72} onError={() => setBroken(true)} />
      )}
      <div class="upload-info">
        <div class="row">
          <span class="upload-name">{item.file.name}</span>
          <span class="muted">{bytes(item.file.size)}</span>
        </div>
        <label for={id} class="sr-only">
          Title for {item.file.name}
        </label>
        <input
          id={id}
          value={item.title}
          maxLength={200}
          disabled={item.state === 'uploading' || item.state === 'done'}
          onInput={(e) => onTitle((e.target as HTMLInputElement).value)}
          placeholder="Title"
        />
        <progress max={1} value={item.progress} aria-label={`Upload progress of ${item.file.name}`} />
        <div class="upload-status" role="status" aria-live="polite">
          {item.state === 'ready' && <span class="muted">Ready to upload</span>}
          {item.state === 'uploading' && <span>Uploading… {Math.round(item.progress * 100)}%</span>}
          {item.state === 'done' && item.result && !item.result.pending && (
            <span class="ok">
              Uploaded. <a href={`/posts/${item.result.id}`}>View “{item.result.title}”</a>
            </span>
          )}
          {item.state === 'done' && item.result?.pending && (
            <span class="ok" data-testid="upload-pending">
              Uploaded; it waits for a moderator's approval before others can see it. <a href={`/posts/${item.result.id}`}>View “{item.result.title}”</a>
            </span>
          )}
          {item.state === 'failed' && item.error && (
            <span class="upload-error" data-testid="upload-error">
              {duplicate ? (
                <>
                  This file is already on the board: <a href={`/posts/${item.error.body.postId}`}>see the existing post</a>.
                </>
              ) : (
                explain(item.error)
              )}
            </span>
          )}
        </div>
      </div>
      <div class="upload-tools">
        {item.state === 'failed' && retryable && (
          <button type="button" class="btn btn-small" onClick={onRetry}>
            Retry
          </button>
        )}
        {item.state !== 'uploading' && item.state !== 'done' && (
          <button type="button" class="btn btn-ghost btn-small" onClick={onRemove} aria-label={`Remove ${item.file.name}`}>
            Remove
          </button>
        )}
      </div>
    </li>
  );
}
