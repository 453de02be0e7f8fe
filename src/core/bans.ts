/** A ban as the 403 of a banned user's write shows it. */
export interface BanInForce {
  reason: string;
  until: number | null;
}

export const banEnd = (until: number | null): string => (until === null ? 'permanent' : `until ${new Date(until).toISOString()}`);

export const banMessage = (ban: BanInForce): string => `Your account is banned (${banEnd(ban.until)}): ${ban.reason}`;

/** The `ban` field of that 403. */
export const banJson = (ban: BanInForce) => ({ reason: ban.reason, until: ban.until === null ? null : new Date(ban.until).toISOString() });
