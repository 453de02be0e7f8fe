/** The `pagination` object of the tag lists (tags, aliases, implications). */
export const pagination = (total: number, page: number, perPage: number) => ({ total, page, perPage, totalPages: Math.ceil(total / perPage) });
