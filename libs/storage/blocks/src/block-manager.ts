import type { Readable } from 'stream';
import type { BlockRef } from './block-store';

/** The blocks a body was split into, and its length. */
export interface StoredBody {
  blocks: BlockRef[];
  size: number;
  /**
   * MD5 of the whole body, when the manager computed it while writing (then callers need not hash
   * the body themselves; see `digestsBody`).
   */
  md5?: Buffer;
}

/** Options of `writeStream`. */
export interface WriteStreamOptions {
  /** Tier (block store) to write to; the configured default tier otherwise (e.g. the cold tier for a Transition). */
  tier?: string;
}

/** One block whose reference `from` is to become another (`BlockManager.moveRefs`). */
export interface RefMove {
  block: BlockRef;
  from: string;
}

/**
 * Block lifecycle on top of a BlockStore and the block status / reference tables:
 * in-flight (status row with a TTL, `is_alive` discipline of seed 004) -> referenced -> released
 * -> deleted when no reference is left. Blocks never committed are reclaimed by garbage collection.
 */
export interface BlockManager {
  /** True when `writeStream` always returns the body's MD5 in `StoredBody.md5`. */
  readonly digestsBody?: boolean;
  /**
   * Splits `body` into blocks of the configured size and writes them, recording each as in flight.
   * Reads at most one block ahead (never the whole body). If the body errors, the blocks written so
   * far are discarded (and would be reclaimed by GC if the process died).
   */
  writeStream(body: Readable, options?: WriteStreamOptions): Promise<StoredBody>;
  /**
   * Commits blocks as referenced by `ref` (e.g. `v:<vid>`, `p:<uploadId>:<part>:<pid>`); idempotent.
   * Throws BlockUnavailableError for a block that can no longer be referenced (its in-flight status
   * expired, or it is being deleted because its last reference was just released — CopyObject must
   * then copy the bytes instead of sharing them). On failure the references this call added are
   * released again, so nothing half-committed is left behind.
   */
  addRefs(blocks: BlockRef[], ref: string): Promise<void>;
  /**
   * Moves references to `to`: each block gains `to` and loses its `from` references in one atomic
   * step, so it is never without a reference in between (multipart completion: the parts'
   * references become the version's). Idempotent. Throws BlockUnavailableError as `addRefs` does;
   * on failure the blocks already moved stay moved — each holds one of the two, so nothing is
   * orphaned, and the caller's retry (or its undo, releasing `to`) finishes the job.
   */
  moveRefs(moves: RefMove[], to: string): Promise<void>;
  /** Drops `ref` from each block; a block left with no reference loses its bytes and status row. Idempotent. */
  releaseRefs(blocks: BlockRef[], ref: string): Promise<void>;
  /** Abandons in-flight blocks that will never be committed (failed verification, BadDigest, aborted body). */
  discard(blocks: BlockRef[]): Promise<void>;
  /** Streams bytes [start, endInclusive] of the blocks concatenated (all bytes by default). */
  openRead(blocks: BlockRef[], range?: { start: number; endInclusive: number }): Readable;
}

/** Nest injection token of the app's BlockManager. */
export const BLOCK_MANAGER = Symbol('BlockManager');
