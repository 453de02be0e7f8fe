export type WebBuildResult = 'built' | 'fresh' | 'stale' | 'missing';
/** Builds web/ into web/dist when stale (or always with force); see build.mjs. */
export function buildWeb(opts?: { force?: boolean; quiet?: boolean; web?: string; loadVite?: () => Promise<unknown> }): Promise<WebBuildResult>;
export function isStale(web?: string): boolean;
/** What the command line says about a result. */
export function report(result: WebBuildResult): { stream: 'stdout' | 'stderr'; text: string };
