/** Where `npm run build` puts the malloc-trim addon. */
export const MALLOC_TRIM_ADDON: string;
export const MALLOC_TRIM_SOURCE: string;
/** Compiles the addon; its path, or null where it cannot be built here (it says why). */
export function buildNative(): string | null;
