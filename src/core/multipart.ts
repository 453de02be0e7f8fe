import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { fieldError } from './errors.ts';
import { firstUnstorable, unstorableError } from './http-edge.ts';
import { PART_HEADER_BYTES, PART_HEADER_PAIRS, PartHeaderCheck } from './multipart-headers.ts';

/**
 * The one way a route reads a multipart body. Broken bodies (cut short, no boundary, a boundary
 * longer than RFC 2046's 70 characters, a part without a usable Content-Disposition, a nameless or
 * repeated part) become a 400 that says what is wrong; the parser underneath would throw errors
 * that look like the server's fault, or skip the part and, at some sizes, never finish
 * (multipart-headers.ts).
 */

const MAX_BOUNDARY = 70;

function checkBoundary(contentType: string | undefined): string {
  const m = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const boundary = m ? (m[1] ?? m[2]) : '';
  if (!boundary) throw fieldError('The Content-Type header names no multipart boundary (multipart/form-data; boundary=...)', 'content-type');
  if (boundary.length > MAX_BOUNDARY)
    throw fieldError(`The multipart boundary is ${boundary.length} characters long; at most ${MAX_BOUNDARY} are allowed`, 'content-type');
  // busboy reads quotes and escapes in the header its own way: the boundary both read must be the same.
  if (/["\\]|[^\x20-\x7e]/.test(boundary))
    throw fieldError('The multipart boundary has a character RFC 2046 does not allow (a quote, a backslash or a non-ASCII one)', 'content-type');
  return boundary;
}

export interface PartLimits {
  files: number;
  fields: number;
  fileSize: number;
}

/** The parts of a multipart body, each named and each name at most once. */
export async function* formParts(req: FastifyRequest, limits: PartLimits): AsyncGenerator<Multipart> {
  const check = new PartHeaderCheck(checkBoundary(req.headers['content-type']));
  // Registered before @fastify/multipart pipes the request into busboy, so each chunk is checked
  // before busboy reads it: a refused part is known before busboy hands over anything after it.
  let refuse: (err: Error) => void = () => undefined;
  const refused = new Promise<never>((_, reject) => (refuse = reject));
  refused.catch(() => undefined);
  const onData = (chunk: Buffer) => {
    check.push(chunk);
    if (check.finished) req.raw.off('data', onData);
    if (check.problem !== null) refuse(fieldError(check.problem));
  };
  req.raw.on('data', onData);
  const seen = new Set<string>();
  let ownError = false;
  try {
    // One more than allowed of each, so a repeated name is reported as such and not as a limit.
    const parts = req.parts({
      limits: { files: limits.files + 1, fields: limits.fields + 1, fileSize: limits.fileSize, headerPairs: PART_HEADER_PAIRS, headerSize: PART_HEADER_BYTES },
    });
    for (;;) {
      const next = parts.next();
      next.catch(() => undefined); // when the refusal wins the race, busboy may end with an error later
      const result = await Promise.race([next, refused]);
      if (check.problem !== null) throw fieldError(check.problem);
      if (result.done) return;
      const part = result.value;
      ownError = true;
      if (!part.fieldname) throw fieldError('A multipart part has no name: each needs Content-Disposition: form-data; name="..."');
      if (seen.has(part.fieldname)) throw fieldError(`The field '${part.fieldname}' was sent more than once; send it once`, part.fieldname);
      seen.add(part.fieldname);
      const text = part.type === 'file' ? part.filename : part.value;
      if (firstUnstorable(part.fieldname) !== null || firstUnstorable(text) !== null) throw unstorableError('field', part.fieldname);
      ownError = false;
      yield part;
    }
  } finally {
    req.raw.off('data', onData);
    // A body refused here is read no further: busboy may be stalled on it, or holding a part no one
    // will read. Unpiped, the rest is discarded by http-edge.ts (drainUnreadBodies).
    if (ownError || check.problem !== null) req.raw.unpipe();
  }
}
