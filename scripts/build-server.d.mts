/** Compiles src/server.ts into dist/; resolves to the entry file's path. */
export function buildServer(): Promise<string>;
export const SERVER_ENTRY: string;
