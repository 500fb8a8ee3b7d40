import { envVar, z } from '@ostore/shared/config';

/** The scanner's variables of the empty-directory cleanup (seed 000). */
export const FOLDER_CLEANUP_ENV = {
  /** Whether this scanner builds filters and scans the folder tables. */
  FOLDER_CLEANUP_ENABLED: envVar.bool(true),
  /** Seconds from the opening of one filter generation to the next (one cleanup cycle). */
  FOLDER_CLEANUP_INTERVAL_SECONDS: envVar.int(3600, 1, 30 * 86400),
  /** Candidates per parent directory partition and pass at most (soft deletion). */
  FOLDER_CLEANUP_MAX_PER_PARENT: envVar.int(100, 1, 100_000),
  /** The filter's configured false-positive rate. */
  FOLDER_FILTER_FALSE_POSITIVE_RATE: z.coerce.number().gt(0).lt(0.5).default(0.01),
  /** The smallest directory count a generation is sized for. */
  FOLDER_FILTER_MIN_DIRECTORIES: envVar.int(100_000, 1, 1_000_000_000),
  /** A generation whose filter became complete longer ago than this is stale and not used (0: twice the interval). */
  FOLDER_FILTER_MAX_AGE_SECONDS: envVar.int(0, 0, 60 * 86400),
  /** Bytes per stored filter chunk (a multiple of 4). */
  FOLDER_FILTER_CHUNK_BYTES: envVar.int(1024 * 1024, 4096, 16 * 1024 * 1024).refine((n) => n % 4 === 0, 'must be a multiple of 4'),
};

type Parsed = { [K in keyof typeof FOLDER_CLEANUP_ENV]: z.output<(typeof FOLDER_CLEANUP_ENV)[K]> };

/** The cleanup's part of the scanner configuration. */
export interface FolderCleanupConfig {
  enabled: boolean;
  intervalMs: number;
  maxPerParent: number;
  fpr: number;
  minDirectories: number;
  maxAgeMs: number;
  chunkBytes: number;
}

export function toFolderCleanupConfig(p: Parsed): FolderCleanupConfig {
  const intervalMs = p.FOLDER_CLEANUP_INTERVAL_SECONDS * 1000;
  return {
    enabled: p.FOLDER_CLEANUP_ENABLED,
    intervalMs,
    maxPerParent: p.FOLDER_CLEANUP_MAX_PER_PARENT,
    fpr: p.FOLDER_FILTER_FALSE_POSITIVE_RATE,
    minDirectories: p.FOLDER_FILTER_MIN_DIRECTORIES,
    maxAgeMs: p.FOLDER_FILTER_MAX_AGE_SECONDS ? p.FOLDER_FILTER_MAX_AGE_SECONDS * 1000 : 2 * intervalMs,
    chunkBytes: p.FOLDER_FILTER_CHUNK_BYTES,
  };
}
