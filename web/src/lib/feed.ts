import { signal } from './store.ts';

/** The feed's counts alone (the header's badge). */
export const FEED_COUNT = '/api/saved-searches/feed?limit=0';

/** Moves when the member marks their feed seen, so the header reads its count again. */
export const feedSeen = signal(0);
