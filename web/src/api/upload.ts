// POST /api/upload through XMLHttpRequest, the one browser API that reports upload progress.
import { ApiError, errorFrom } from './client.ts';
import type { Uploaded } from './types.ts';

export interface UploadFields {
  title: string;
  tags: string;
  contentRating: string;
  description?: string;
  source?: string;
  parentId?: string;
}

export function uploadFile(file: File, fields: UploadFields, onProgress: (fraction: number) => void): { done: Promise<Uploaded>; abort(): void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<Uploaded>((resolve, reject) => {
    const form = new FormData();
    // Text fields first: the server reads them before it streams the file.
    form.append('title', fields.title);
    if (fields.tags.trim()) form.append('tags', fields.tags);
    form.append('contentRating', fields.contentRating);
    if (fields.description) form.append('description', fields.description);
    if (fields.source) form.append('source', fields.source);
    if (fields.parentId) form.append('parentId', fields.parentId);
    form.append('file', file, file.name);
    xhr.open('POST', '/api/upload');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status === 201 || xhr.status === 200) {
        onProgress(1);
        resolve(JSON.parse(xhr.responseText));
      } else reject(errorFrom(xhr.status, xhr.responseText, xhr.getResponseHeader('Retry-After')));
    };
    xhr.onerror = () => reject(errorFrom(0, '', null));
    xhr.onabort = () => reject(new ApiError(0, 'Cancelled.'));
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}
