/** Base of every error the block storage throws; callers map them, the gateway turns them into S3 codes. */
export class BlockStorageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A block's bytes are not in the store (never written, or already deleted). */
export class BlockNotFoundError extends BlockStorageError {
  constructor(
    readonly blockId: string,
    readonly tier: string,
  ) {
    super(`block ${blockId} not found in tier ${tier}`);
  }
}

/**
 * A block cannot take a new reference: its status row expired (never committed in time), it is
 * being deleted or it is gone. Raised by `addRefs` instead of ever creating a dangling reference;
 * the caller retries from scratch (re-uploads, or copies the data instead of sharing blocks).
 */
export class BlockUnavailableError extends BlockStorageError {
  constructor(
    readonly blockId: string,
    readonly state: string,
  ) {
    super(`block ${blockId} cannot be referenced (${state})`);
  }
}

/** A compare-and-set on a block kept losing to concurrent writers; safe to retry the whole operation. */
export class BlockContentionError extends BlockStorageError {
  constructor(
    readonly blockId: string,
    readonly attempts: number,
  ) {
    super(`block ${blockId}: gave up after ${attempts} conflicting lightweight transactions`);
  }
}

/** A block's bytes do not have the length the caller expects (corruption or a truncated chunk set). */
export class BlockCorruptError extends BlockStorageError {
  constructor(
    readonly blockId: string,
    detail: string,
  ) {
    super(`block ${blockId} is corrupt: ${detail}`);
  }
}

/**
 * The block store's filesystem has no space (or inodes) left for a new block. Nothing of the block
 * stays behind (its temp file is removed); retryable once space returns, so the gateway may answer
 * a 5xx S3 clients retry.
 */
export class BlockStoreFullError extends BlockStorageError {
  constructor(
    readonly blockId: string,
    readonly tier: string,
    readonly errno: string,
  ) {
    super(`block ${blockId}: tier ${tier} is out of space (${errno})`);
  }
}
