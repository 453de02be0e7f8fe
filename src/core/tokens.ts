import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, base64url (43 characters). */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Only this is stored for session tokens and API keys. */
export const sha256Hex = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');
