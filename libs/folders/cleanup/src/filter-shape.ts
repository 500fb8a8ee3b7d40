/** The size and hash count of a Bloom filter; filters of one generation all have the same shape. */
export interface FilterShape {
  /** Bits, a multiple of 32. */
  readonly bits: number;
  /** Hash functions per element. */
  readonly hashes: number;
  /**
   * Mixed into every element before hashing (see DirectoryFilter), so that each generation hashes
   * the same directories to different bits and an empty directory that is a false positive of one
   * generation is, with probability 1 − fpr, found empty by the next. Absent for generations opened
   * before salts existed (their filters were built unsalted and are read unsalted).
   */
  readonly salt?: number;
}

/** The `bloomfilter` package's upper bound (2^32 bits, 512 MiB). */
export const MAX_FILTER_BITS = 2 ** 32;

/**
 * The optimal shape for `directories` elements at false-positive rate `fpr`:
 * m = −n·ln p / (ln 2)², k = round(m/n · ln 2) (at least 1), m rounded up to 32 bits.
 * Throws when it would exceed the package's 2^32 bits.
 */
export function shapeFor(directories: number, fpr: number): FilterShape {
  if (!Number.isFinite(directories) || directories < 1) throw new RangeError(`directories must be >= 1 (got ${directories})`);
  if (!(fpr > 0 && fpr < 1)) throw new RangeError(`false-positive rate must be in (0, 1) (got ${fpr})`);
  const n = Math.ceil(directories);
  const raw = Math.ceil((-n * Math.log(fpr)) / (Math.LN2 * Math.LN2));
  const bits = Math.max(32, Math.ceil(raw / 32) * 32);
  if (bits > MAX_FILTER_BITS) throw new RangeError(`a filter of ${n} directories at ${fpr} needs ${bits} bits (> 2^32)`);
  return { bits, hashes: Math.max(1, Math.round((bits / n) * Math.LN2)) };
}

/** Whether two shapes describe the same filters (size, hashes and salt), so that they can be ORed. */
export function sameShape(a: FilterShape, b: FilterShape): boolean {
  return a.bits === b.bits && a.hashes === b.hashes && a.salt === b.salt;
}

/** Share of the filter's bits that are set. */
export function fillRatio(setBits: number, shape: FilterShape): number {
  return setBits / shape.bits;
}

/** The false-positive rate a filter with this fill answers with: fill^k. */
export function estimatedFpr(fill: number, shape: FilterShape): number {
  return Math.pow(fill, shape.hashes);
}

/** How many distinct elements a filter with this fill holds (Swamidass & Baldi): −m/k · ln(1 − fill). */
export function estimatedElements(fill: number, shape: FilterShape): number {
  if (fill >= 1) return Infinity;
  return (shape.bits / shape.hashes) * Math.log(1 / (1 - fill));
}

/** Capacity and saturation settings of the cleanup (see the scanner's FOLDER_FILTER_* variables). */
export interface SaturationSettings {
  /** The configured false-positive rate. */
  readonly fpr: number;
  /** A filter whose estimated rate exceeds fpr × this is saturated (default 2). */
  readonly saturationFactor: number;
  /** Capacity of the next generation over the directories seen (default 1.5). */
  readonly headroom: number;
  /** The smallest capacity a generation is sized for. */
  readonly minDirectories: number;
}

/**
 * The saturation rule: a filter is used only while its estimated false-positive rate stays within
 * `saturationFactor` × the configured one. More elements than its capacity make every directory
 * look non-empty (MinIO dropped its Bloom filter for that reason): such a filter is not used (the
 * cleanup skips the generation, which is safe: it only ever delays deletions) and the next
 * generation is sized from what this one held instead.
 */
export function isSaturated(fill: number, shape: FilterShape, s: Pick<SaturationSettings, 'fpr' | 'saturationFactor'>): boolean {
  return estimatedFpr(fill, shape) > s.fpr * s.saturationFactor;
}

/**
 * The capacity of the next generation: the largest of the directories the folder scans counted,
 * the elements the last combined filter is estimated to hold (larger than its capacity when it
 * saturated; a filter with every bit set estimates infinity, then 4× its capacity) and the
 * configured minimum, times the headroom.
 */
export function nextCapacity(s: SaturationSettings, counted: number, last?: { estimatedElements: number; capacity: number }): number {
  const held = last === undefined ? 0 : Number.isFinite(last.estimatedElements) ? last.estimatedElements : last.capacity * 4;
  return Math.max(s.minDirectories, Math.ceil(Math.max(counted, held) * s.headroom));
}
