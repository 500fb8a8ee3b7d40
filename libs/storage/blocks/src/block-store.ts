/**
 * Where block bytes live. A block is immutable once written and addressed by an opaque id.
 * Implementations: local filesystem (write, fsync, rename) and Cassandra chunks (no shared disk
 * between gateways). A second, colder tier (e.g. compressed blocks elsewhere) is another
 * instance with another `tier` name.
 */
export interface BlockStore {
  readonly tier: string;
  /**
   * The read unit `openRead` should use for this store, in bytes: a store whose range reads cost
   * as much as a whole-block read (a compressed store) says `Infinity`. Unset: the manager's default.
   */
  readonly preferredReadSize?: number;
  /** Durably stores `data` under `blockId`; writing the same id again with the same bytes is harmless. */
  write(blockId: string, data: Buffer): Promise<void>;
  /** Reads bytes [start, endExclusive) of a block (whole block by default). */
  read(blockId: string, start?: number, endExclusive?: number): Promise<Buffer>;
  /**
   * Opens a block for several reads into the caller's buffers: one open per block instead of one
   * per read, and no allocation per read. Unset: `openRead` calls `read` per piece.
   */
  openReader?(blockId: string): Promise<BlockReader>;
  /** Removes a block's bytes; removing a missing block is not an error. */
  delete(blockId: string): Promise<void>;
  exists(blockId: string): Promise<boolean>;
  /**
   * True when anything of the block is stored, complete or not — e.g. what a write killed midway
   * left. The GC asks it before deleting a block whose status is gone. Unset: `exists`.
   */
  holdsAnyBytes?(blockId: string): Promise<boolean>;
}

/** An open block (see BlockStore.openReader); `close` it once done, also after an error. */
export interface BlockReader {
  /**
   * Fills `target` with the block's bytes from `position` on; fewer bytes only at the block's end.
   * Resolves with the number of bytes read.
   */
  readInto(target: Buffer, position: number): Promise<number>;
  close(): Promise<void>;
}

/** One block of an object or part, in order. */
export interface BlockRef {
  blockId: string;
  size: number;
  tier: string;
}

/** The block stores of an app, one per tier; new bodies go to `defaultTier` unless told otherwise. */
export class BlockStores {
  private readonly byTier = new Map<string, BlockStore>();

  constructor(
    stores: BlockStore[],
    readonly defaultTier: string = stores[0]?.tier ?? '',
  ) {
    for (const s of stores) {
      if (this.byTier.has(s.tier)) throw new Error(`two block stores claim tier "${s.tier}"`);
      this.byTier.set(s.tier, s);
    }
    if (!this.byTier.has(defaultTier))
      throw new Error(`no block store for the default tier "${defaultTier}"`);
  }

  /** The store of `tier`; throws on a tier this app does not know (a configuration error, not a 404). */
  get(tier: string): BlockStore {
    const s = this.byTier.get(tier);
    if (!s)
      throw new Error(`no block store configured for tier "${tier}" (known: ${this.tiers().join(', ')})`);
    return s;
  }

  tiers(): string[] {
    return [...this.byTier.keys()];
  }
}
