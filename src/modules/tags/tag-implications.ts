/**
 * The tags a tag implies, and the tags that imply it, by name. Implications are another change's
 * work (issue 22, point 4, with its own table): until it lands, no tag has any.
 */
export async function tagImplications(_tagId: number): Promise<{ implies: string[]; impliedBy: string[] }> {
  return { implies: [], impliedBy: [] };
}
