/**
 * Reads of a kept structure (held at one data version) that it could not answer, at the data
 * version `version`, before it is read again: each upload or edit moves the version, and a board
 * written to often would otherwise pay a whole reading for a read or two served from it.
 */
export const READS_BEFORE_BUILD = 4;

/**
 * Counts the reads a structure kept at one data version could not answer, per version (a board
 * written to between every few reads never builds for nothing), and builds it again, one build at
 * a time, once READS_BEFORE_BUILD of them came at one version.
 */
export class RebuildOnMisses {
  private missed = 0;
  private missedAt = -1;
  private building: Promise<void> | null = null;

  /** A read at `version` the structure could not answer: whether `build` ran (and has ended) for it. */
  async miss(version: number, build: () => Promise<void>): Promise<boolean> {
    if (this.missedAt !== version) {
      this.missedAt = version;
      this.missed = 0;
    }
    if (++this.missed < READS_BEFORE_BUILD) return false;
    this.building ??= build().finally(() => {
      this.building = null;
    });
    await this.building;
    return true;
  }
}
