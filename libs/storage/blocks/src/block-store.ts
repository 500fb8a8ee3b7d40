/**
 * Where block bytes live. A block is immutable once written and addressed by an opaque id.
 * Implementations: local filesystem (write, fsync, rename) and Cassandra chunks (no shared disk
 * between gateways). A second, colder tier (e.g. compressed blocks elsewhere) is another
 * instance with another `tier` name.
 */
export interface BlockStore {
  readonly tier: string;
  /** Durably stores `data` under `blockId`; writing the same id again with the same bytes is harmless. */
  write(blockId: string, data: Buffer): Promise<void>;
  /** Reads bytes [start, endExclusive) of a block (whole block by default). */
  read(blockId: string, start?: number, endExclusive?: number): Promise<Buffer>;
  /** Removes a block's bytes; removing a missing block is not an error. */
  delete(blockId: string): Promise<void>;
  exists(blockId: string): Promise<boolean>;
}

/** One block of an object or part, in order. */
export interface BlockRef {
  blockId: string;
  size: number;
  tier: string;
}
