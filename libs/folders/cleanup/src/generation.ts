import { FilterShape } from './filter-shape';

/** One generation of filters: every host builds its filter of this shape, they are ORed before use. */
export interface FilterGeneration {
  readonly generation: number;
  readonly shape: FilterShape;
  /** The directories it was sized for. */
  readonly capacity: number;
  /** The false-positive rate it was sized for. */
  readonly fpr: number;
  /** When it was opened: no key written before this was missed by a complete build of it. */
  readonly createdAt: Date;
}

/** One host's filter of a generation. */
export interface HostFilter {
  readonly source: string;
  readonly generation: number;
  readonly complete: boolean;
  /** Chunks stored (valid once complete). */
  readonly chunks: number;
  /** Keys the build read. */
  readonly keys: number;
  /** When the build stored its last chunk (set once complete). */
  readonly completedAt?: Date;
}

/** Why the folder scan does not use a generation (and publishes nothing). */
export type FilterSkip = 'missing' | 'incomplete' | 'stale' | 'saturated';

/** The folder scan's rule for using a generation. */
export interface FilterUseSettings {
  /** Hosts (Cassandra nodes) whose filters must all be complete. */
  readonly expectedHosts: number;
  /** A generation whose filter became complete longer ago than this is stale. */
  readonly maxAgeMs: number;
}

/**
 * When the combined filter of a generation became usable: the completion of the last of its
 * hosts' builds (the opening, for a host row written before completions were recorded).
 */
export function completedAtOf(generation: FilterGeneration, hosts: readonly HostFilter[]): number {
  let at = generation.createdAt.getTime();
  for (const h of hosts) if (h.generation === generation.generation && h.complete && h.completedAt) at = Math.max(at, h.completedAt.getTime());
  return at;
}

/**
 * Whether the folder scan may judge directories by `generation`: it must exist, every expected host
 * must have completed its build (a missing host's keys would make its directories look empty) and
 * it must not be stale (an old filter misses nothing that still exists, but a cleanup should act
 * on a recent picture). Staleness counts from the moment the combined filter became complete
 * (completedAtOf), not from the generation's opening: a build slower than the max age must not
 * make every pass skip. Saturation is judged on the combined filter (isSaturated). A skip never
 * deletes anything: directories wait for the next generation.
 */
export function filterSkipOf(
  generation: FilterGeneration | undefined,
  hosts: readonly HostFilter[],
  nowMs: number,
  s: FilterUseSettings,
): FilterSkip | undefined {
  if (generation === undefined) return 'missing';
  const complete = hosts.filter((h) => h.generation === generation.generation && h.complete);
  if (complete.length < s.expectedHosts) return 'incomplete';
  if (nowMs - completedAtOf(generation, complete) > s.maxAgeMs) return 'stale';
  return undefined;
}

/**
 * Whether the scheduler may act on a candidate of filter generation `candidate` when the newest
 * generation is `newest`: only a candidate of one of the `recent` newest generations (the
 * current one, and with recent = 2 the one before it, whose scan may still be draining while the
 * next is built). A candidate without a generation (older messages) or with no generation known
 * is refused: a stale filter never causes a deletion, the directory waits for a later cycle.
 */
export function isRecentGeneration(candidate: number | undefined, newest: number | undefined, recent: number): boolean {
  if (candidate === undefined || newest === undefined) return false;
  return candidate <= newest ? newest - candidate < recent : true;
}
