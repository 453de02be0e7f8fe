import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/** The service version (package.json); reported by GET /api/public/status. */
export const SERVICE_VERSION: string = pkg.version;
/** The API version; reported by GET /api. A separate value from the service version. */
export const API_VERSION = '1.0';
