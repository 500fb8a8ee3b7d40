import { GC_BUCKET_MS } from './state/block-state.repository';

/** Tuning of the block lifecycle, shared by the manager and the garbage collector. */
export interface BlockLifecycleOptions {
  /** Bytes per block (default 8 MiB). The last block of a body is shorter. */
  blockSize?: number;
  /**
   * TTL of an in-flight status row (default 1 h). A body whose upload takes longer cannot be
   * committed (its first blocks' status expired: `addRefs` fails loudly) — size it for the slowest
   * upload of the largest part you accept.
   */
  inFlightTtlSeconds?: number;
  /** Age after which the GC reclaims uncommitted blocks (default: the in-flight TTL). */
  gcGraceMs?: number;
  /**
   * TTL of GC candidate entries (`blocks_in_flight`) and bucket progress marks (default 3 days):
   * how long the GC may be down without blocks escaping it. Must exceed grace + 2 buckets (2 h).
   */
  candidateTtlSeconds?: number;
  /** Partitions per hour of the candidate index (default 16). Only ever raise it on a live cluster. */
  gcShards?: number;
  /**
   * Read unit of `openRead` for stores without a preference (default 4 MiB). A large GET streams
   * one read at a time with one read ahead; 4 MiB reads cost a 64 MiB GET a fifth less gateway CPU
   * than 1 MiB ones (fewer thread-pool reads and socket writes; tools/bench/results/
   * 2026-12-06-vs-minio.s35-ab-readsize.md). A range is read as it is, never rounded up.
   */
  readSize?: number;
  /**
   * Shared memory for the blocks of bodies being written (default 96 MiB, 12 blocks of 8 MiB): the
   * pool of BlockBufferPool, kept for reuse once used. A block beyond it is held in ordinary memory
   * and hashed through a copy to the MD5 threads (`ostore_block_write_buffer_overflows_total`).
   * Each body being written holds at most two blocks; size it for the parts written at once.
   */
  writeBufferBytes?: number;
  /** Blocks handled in parallel by addRefs/releaseRefs/discard and by a GC bucket (default 8). */
  concurrency?: number;
  /** Compare-and-set attempts on one block before giving up with BlockContentionError (default 16). */
  casAttempts?: number;
}

export type BlockLifecycleSettings = Required<BlockLifecycleOptions>;

export const DEFAULT_BLOCK_SIZE = 8 * 1024 * 1024;
export const DEFAULT_READ_SIZE = 4 * 1024 * 1024;
export const DEFAULT_WRITE_BUFFER_BYTES = 96 * 1024 * 1024;

/** How many block buffers `writeBufferBytes` holds: at least two, one body's pipeline. */
export function sharedBuffersFor(settings: Pick<BlockLifecycleSettings, 'blockSize' | 'writeBufferBytes'>): number {
  return Math.max(2, Math.floor(settings.writeBufferBytes / settings.blockSize));
}

/** Fills in defaults and rejects inconsistent settings with one message listing every problem. */
export function resolveBlockLifecycle(options: BlockLifecycleOptions = {}): BlockLifecycleSettings {
  const inFlightTtlSeconds = options.inFlightTtlSeconds ?? 3600;
  const s: BlockLifecycleSettings = {
    blockSize: options.blockSize ?? DEFAULT_BLOCK_SIZE,
    inFlightTtlSeconds,
    gcGraceMs: options.gcGraceMs ?? inFlightTtlSeconds * 1000,
    candidateTtlSeconds: options.candidateTtlSeconds ?? 3 * 24 * 3600,
    gcShards: options.gcShards ?? 16,
    readSize: options.readSize ?? DEFAULT_READ_SIZE,
    writeBufferBytes: options.writeBufferBytes ?? DEFAULT_WRITE_BUFFER_BYTES,
    concurrency: options.concurrency ?? 8,
    casAttempts: options.casAttempts ?? 16,
  };
  const problems: string[] = [];
  const positiveInt = (name: keyof BlockLifecycleSettings) => {
    if (!Number.isSafeInteger(s[name]) || s[name] <= 0)
      problems.push(`${name} must be a positive integer (got ${s[name]})`);
  };
  (Object.keys(s) as (keyof BlockLifecycleSettings)[]).forEach(positiveInt);
  if (s.blockSize > 64 * 1024 * 1024) problems.push(`blockSize must be at most 64 MiB (got ${s.blockSize})`);
  if (s.candidateTtlSeconds * 1000 < s.gcGraceMs + 2 * GC_BUCKET_MS) {
    problems.push(
      `candidateTtlSeconds (${s.candidateTtlSeconds}) must exceed gcGraceMs/1000 + 7200 so the GC sees every candidate after its grace`,
    );
  }
  if (problems.length) throw new Error(`invalid block lifecycle settings: ${problems.join('; ')}`);
  return s;
}
