import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, invalidate } from '../api/client.ts';
import { uploadFile } from '../api/upload.ts';
import { RATINGS, type Rating } from '../api/types.ts';
import { FamilyFields, namesFamilyField, parentValue } from '../components/family-fields.tsx';
import { TagInput } from '../components/tag-input.tsx';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/use-api.ts';
import { UploadRow, type Item } from './upload-row.tsx';

const ACCEPT = 'image/jpeg,image/png,image/gif,image/webp,image/avif,video/mp4,video/webm';
let nextKey = 1;

export default function UploadPage() {
  useTitle('Upload');
  const { user } = useSession();
  const [items, setItems] = useState<Item[]>([]);
  const [tags, setTags] = useState('');
  const [rating, setRating] = useState<Rating>('safe');
  const [source, setSource] = useState('');
  const [parent, setParent] = useState('');
  // The last 400 naming source or parentId: shown at that field until it is edited.
  const [familyError, setFamilyError] = useState<ApiError | null>(null);
  const [over, setOver] = useState(false);
  const [running, setRunning] = useState(false);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  useEffect(() => () => itemsRef.current.forEach((i) => URL.revokeObjectURL(i.preview)), []);

  if (!user) {
    return (
      <div class="page narrow">
        <h1>Upload</h1>
        <p>
          You need an account to upload. <a href="/login?next=/upload">Sign in</a> or <a href="/register?next=/upload">sign up</a>: it takes a few seconds.
        </p>
      </div>
    );
  }

  const update = (key: number, change: Partial<Item>) => setItems((list) => list.map((i) => (i.key === key ? { ...i, ...change } : i)));
  const add = (files: FileList | File[]) => {
    const added = [...files].map(
      (file): Item => ({
        key: nextKey++,
        file,
        preview: URL.createObjectURL(file),
        title: file.name.replace(/\.[^.]+$/, ''),
        state: 'ready',
        progress: 0,
      }),
    );
    setItems((list) => [...list, ...added]);
  };
  const send = async (item: Item) => {
    update(item.key, { state: 'uploading', progress: 0, error: undefined });
    try {
      const fields = { title: item.title, tags, contentRating: rating, source: source.trim(), parentId: parentValue(parent) };
      const r = await uploadFile(item.file, fields, (p) => update(item.key, { progress: p })).done;
      update(item.key, { state: 'done', progress: 1, result: r.post });
      invalidate('/api/posts');
    } catch (err) {
      const error = err instanceof ApiError ? err : new ApiError(0, String(err));
      if (namesFamilyField(error)) setFamilyError(error);
      update(item.key, { state: 'failed', error });
    }
  };
  // Editing the field a 400 named makes the files it refused ready to send again.
  const family = (set: (v: string) => void) => (v: string) => {
    set(v);
    setFamilyError(null);
    setItems((list) => list.map((i): Item => (i.state === 'failed' && namesFamilyField(i.error) ? { ...i, state: 'ready', error: undefined } : i)));
  };
  const uploadAll = async () => {
    setRunning(true);
    const queue = itemsRef.current.filter((i) => i.state === 'ready');
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await send(itemsRef.current.find((i) => i.key === next!.key) ?? next);
    };
    await Promise.all([worker(), worker()]);
    setRunning(false);
  };
  const ready = items.filter((i) => i.state === 'ready').length;

  return (
    <div class="page upload-page">
      <h1>Upload</h1>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target; the file button inside is the keyboard way */}
      <div
        class={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (e.dataTransfer?.files.length) add(e.dataTransfer.files);
        }}
        data-testid="dropzone"
      >
        <p>
          <strong>Drop images or videos here</strong>
        </p>
        <p class="muted">JPEG, PNG, GIF, WebP, AVIF, MP4 or WebM; several at once.</p>
        <label class="btn btn-primary file-button">
          Choose files
          <input
            type="file"
            multiple
            accept={ACCEPT}
            class="sr-only"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              if (input.files?.length) add(input.files);
              input.value = '';
            }}
          />
        </label>
      </div>

      <form
        class="card stack upload-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) uploadAll();
        }}
      >
        <TagInput
          id="u-tags"
          label="Tags for these files (comma-separated)"
          separator=","
          value={tags}
          onValue={setTags}
          placeholder="e.g. landscape, sunset, blue_sky"
        />
        <fieldset class="field">
          <legend>Rating</legend>
          <div class="row">
            {RATINGS.map((r) => (
              <label key={r} class="radio">
                <input type="radio" name="rating" value={r} checked={rating === r} onChange={() => setRating(r)} /> {r}
              </label>
            ))}
          </div>
        </fieldset>
        <FamilyFields prefix="u" source={source} parent={parent} onSource={family(setSource)} onParent={family(setParent)} error={familyError} />
        {items.length > 0 && (
          <ul class="upload-list" aria-label="Files to upload">
            {items.map((item) => (
              <UploadRow
                key={item.key}
                item={item}
                onTitle={(title) => update(item.key, { title })}
                onRemove={() => {
                  URL.revokeObjectURL(item.preview);
                  setItems((l) => l.filter((i) => i.key !== item.key));
                }}
                onRetry={() => send(item)}
              />
            ))}
          </ul>
        )}
        <div class="row">
          <button type="submit" class="btn btn-primary" disabled={!ready || running}>
            {running ? 'Uploading…' : ready > 1 ? `Upload ${ready} files` : 'Upload'}
          </button>
          {items.some((i) => i.state === 'done') && (
            <button type="button" class="btn btn-ghost" onClick={() => setItems((l) => l.filter((i) => i.state !== 'done'))}>
              Clear finished
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
