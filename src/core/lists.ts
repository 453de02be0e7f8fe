/** The `pagination` object of the tag lists (tags, aliases, implications, history). */
export const pagination = (total: number, page: number, perPage: number) => ({ total, page, perPage, totalPages: Math.ceil(total / perPage) });

/** Who made an alias, an implication or a change: null when nobody signed in did (the command line) or the account is gone. */
export const userRef = (username: string | null) => (username === null ? null : { username });
