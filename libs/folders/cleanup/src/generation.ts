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
}

/** Why the folder scan does not use a generation (and publishes nothing). */
export type FilterSkip = 'missing' | 'incomplete' | 'stale' | 'saturated';

/** The folder scan's rule for using a generation. */
export interface FilterUseSettings {
  /** Hosts (Cassandra nodes) whose filters must all be complete. */
  readonly expectedHosts: number;
  /** A generation opened longer ago than this is stale. */
  readonly maxAgeMs: number;
}

/**
 * Whether the folder scan may judge directories by `generation`: it must exist, every expected host
 * must have completed its build (a missing host's keys would make its directories look empty) and
 * it must not be stale (an old filter misses nothing that still exists, but a cleanup should act
 * on a recent picture). Saturation is judged on the combined filter (isSaturated). A skip never
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
  if (nowMs - generation.createdAt.getTime() > s.maxAgeMs) return 'stale';
  return undefined;
}
