export const TIERS = ['free', 'basic', 'pro', 'enterprise'] as const;
export const ROLES = ['user', 'moderator', 'admin'] as const;
export type Tier = (typeof TIERS)[number];
export type Role = (typeof ROLES)[number];

/** Active API keys allowed per tier (reference: 0, 1, 3, 5). */
export const KEY_CAP: Record<Tier, number> = { free: 0, basic: 1, pro: 3, enterprise: 5 };

/** Requests per hour with an API key, over all endpoints together, per user. */
export const HOURLY_BUDGET: Record<Tier, number> = { free: 30, basic: 200, pro: 1000, enterprise: 5000 };
