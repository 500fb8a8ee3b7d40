import { envVar, z } from '@ostore/shared/config';

/** The scheduler's variables of the empty-directory cleanup. */
export const FOLDER_CLEANUP_ENV = {
  /** Folder rows deleted per parent directory partition per window at most (soft deletion). */
  FOLDER_CLEANUP_MAX_PER_PARENT: envVar.int(100, 1, 100_000),
  /** The window of that bound (one cleanup cycle: the scanners' FOLDER_CLEANUP_INTERVAL_SECONDS). */
  FOLDER_CLEANUP_WINDOW_SECONDS: envVar.int(3600, 1, 30 * 86400),
  /** Clock skew allowed between schedulers and gateways (the folder rows' write timestamps). */
  FOLDER_CLEANUP_SKEW_MS: envVar.int(5000, 0, 600_000),
  /** The gateways' S3_FOLDER_CACHE_MS: deletions are timestamped this much (plus the skew) in the past. */
  S3_FOLDER_CACHE_MS: envVar.int(30_000, 0, 600_000),
};

type Parsed = { [K in keyof typeof FOLDER_CLEANUP_ENV]: z.output<(typeof FOLDER_CLEANUP_ENV)[K]> };

/** The cleanup's part of the scheduler configuration. */
export interface FolderCleanupConfig {
  maxPerParent: number;
  windowMs: number;
  skewMs: number;
  folderCacheTtlMs: number;
}

export function toFolderCleanupConfig(p: Parsed): FolderCleanupConfig {
  return {
    maxPerParent: p.FOLDER_CLEANUP_MAX_PER_PARENT,
    windowMs: p.FOLDER_CLEANUP_WINDOW_SECONDS * 1000,
    skewMs: p.FOLDER_CLEANUP_SKEW_MS,
    folderCacheTtlMs: p.S3_FOLDER_CACHE_MS,
  };
}
