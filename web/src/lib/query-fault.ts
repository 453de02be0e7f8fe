// A search the server could not read (a 400 naming `q`), handed from the browse page, which
// asked and shows the message, to the search box in the header, which marks itself invalid.
import { fieldDetail } from '../api/client.ts';
import { signal } from './store.ts';

export interface QueryFault {
  /** The text the server refused: the mark is only right while the box still holds it. */
  q: string;
  message: string;
  /** Character offset in q, or null when the server gave none. */
  position: number | null;
}

export const queryFault = signal<QueryFault | null>(null);

/** The id of the header's search box, which the browse page's message about it points back to. */
export const SEARCH_BOX_ID = 'search-q';

/** The fault in `q` an error reports, or null when it is about something else. */
export function faultOf(error: Error | undefined, q: string): QueryFault | null {
  const detail = fieldDetail(error, 'q');
  if (!detail) return null;
  const position = typeof detail.position === 'number' ? Math.max(0, Math.min(q.length, detail.position)) : null;
  return { q, message: detail.message, position };
}
