import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { fieldError } from './errors.ts';
import { firstUnstorable, unstorableError } from './http-edge.ts';

/**
 * The one way a route reads a multipart body. Broken bodies (cut short, no boundary, a boundary
 * longer than RFC 2046's 70 characters, a nameless or repeated part) become a 400 that says what
 * is wrong; the parser underneath would throw errors that look like the server's fault.
 */

const MAX_BOUNDARY = 70;

function checkBoundary(contentType: string | undefined): void {
  const m = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const boundary = m ? (m[1] ?? m[2]) : '';
  if (!boundary) throw fieldError('The Content-Type header names no multipart boundary (multipart/form-data; boundary=...)', 'content-type');
  if (boundary.length > MAX_BOUNDARY)
    throw fieldError(`The multipart boundary is ${boundary.length} characters long; at most ${MAX_BOUNDARY} are allowed`, 'content-type');
}

export interface PartLimits {
  files: number;
  fields: number;
  fileSize: number;
}

/** The parts of a multipart body, each named and each name at most once. */
export async function* formParts(req: FastifyRequest, limits: PartLimits): AsyncGenerator<Multipart> {
  checkBoundary(req.headers['content-type']);
  const seen = new Set<string>();
  // One more than allowed of each, so a repeated name is reported as such and not as a limit.
  for await (const part of req.parts({ limits: { files: limits.files + 1, fields: limits.fields + 1, fileSize: limits.fileSize } })) {
    if (!part.fieldname) throw fieldError('A multipart part has no name: each needs Content-Disposition: form-data; name="..."');
    if (seen.has(part.fieldname)) throw fieldError(`The field '${part.fieldname}' was sent more than once; send it once`, part.fieldname);
    seen.add(part.fieldname);
    const text = part.type === 'file' ? part.filename : part.value;
    if (firstUnstorable(part.fieldname) !== null || firstUnstorable(text) !== null) throw unstorableError('field', part.fieldname);
    yield part;
  }
}
