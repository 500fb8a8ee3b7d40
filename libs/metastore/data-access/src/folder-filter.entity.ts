import type { DirectoryKind, FilterGeneration, HostFilter } from '@ostore/folders/cleanup';

/** A row of `folder_filter_generations`. */
export type FilterGenerationRow = FilterGeneration;

/** A row of `folder_filter_hosts`: one scanner's filter of a generation. */
export interface HostFilterRow extends HostFilter {
  readonly setBits: number;
  readonly startedAt: Date;
}

/** What one scanner's folder scan did with one generation (`folder_cleanup_passes.stat`). */
export interface CleanupPassStat {
  /** Folder rows read (all three tables). */
  checked: number;
  /** Rows absent from the combined filter. */
  foundEmpty: number;
  /** Candidates published (at most the per-parent bound per directory partition). */
  published: number;
  /** Set when the pass did not judge anything: why (missing, incomplete, stale, saturated). */
  skipped?: string;
  /** Fill ratio and estimated false-positive rate of the combined filter it used. */
  fillRatio?: number;
  estimatedFpr?: number;
  /** Distinct elements the combined filter is estimated to hold. */
  estimatedElements?: number;
  /** The same counters per folder table (queue), for passes that judged. */
  byKind?: Partial<Record<DirectoryKind, KindPassStat>>;
}

/** One folder table's part of a pass (its queue: `<kind>-folders`). */
export interface KindPassStat {
  checked: number;
  foundEmpty: number;
  published: number;
}

/** A row of `folder_cleanup_passes`. */
export interface CleanupPassRow {
  readonly generation: number;
  readonly source: string;
  readonly stat: CleanupPassStat;
  readonly finishedAt: Date;
}
