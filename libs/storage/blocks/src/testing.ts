import { randomBytes } from 'crypto';
import { Readable } from 'stream';
import type { BlockManager, RefMove, StoredBody, WriteStreamOptions } from './block-manager';
import { splitIntoBlocks } from './block-splitter';
import type { BlockRef, BlockStore } from './block-store';
import { BlockNotFoundError, BlockUnavailableError } from './errors';
import { planRange } from './range';

/** A BlockStore in a Map, for unit tests. */
export class InMemoryBlockStore implements BlockStore {
  readonly blocks = new Map<string, Buffer>();

  constructor(readonly tier = 'standard') {}

  async write(blockId: string, data: Buffer): Promise<void> {
    this.blocks.set(blockId, Buffer.from(data));
  }

  async read(blockId: string, start = 0, endExclusive?: number): Promise<Buffer> {
    const data = this.blocks.get(blockId);
    if (!data) throw new BlockNotFoundError(blockId, this.tier);
    return data.subarray(Math.max(0, start), Math.min(endExclusive ?? data.length, data.length));
  }

  async delete(blockId: string): Promise<void> {
    this.blocks.delete(blockId);
  }

  async exists(blockId: string): Promise<boolean> {
    return this.blocks.has(blockId);
  }
}

type Op = 'writeStream' | 'addRefs' | 'moveRefs' | 'releaseRefs' | 'discard';

/**
 * An in-memory BlockManager with the same observable rules as the real one: blocks are in flight
 * until `addRefs`, `addRefs` of an unknown or deleted block throws BlockUnavailableError, a block
 * loses its bytes when its last reference is released, `discard` never deletes a referenced block.
 * Inspection helpers and one-shot fault injection (`failNext`) for the callers' unit tests.
 */
export class InMemoryBlockManager implements BlockManager {
  private readonly bytes = new Map<string, Buffer>();
  private readonly refs = new Map<string, Set<string>>();
  private readonly faults = new Map<Op, Error>();

  constructor(
    readonly blockSize = 4,
    readonly tier = 'standard',
  ) {}

  /** Makes the next call of `op` reject with `error` (before doing anything). */
  failNext(op: Op, error: Error): void {
    this.faults.set(op, error);
  }

  /** References of a block (empty for in-flight or deleted blocks). */
  refsOf(blockId: string): string[] {
    return [...(this.refs.get(blockId) ?? [])].sort();
  }

  /** Blocks whose bytes are stored (in flight or referenced). */
  storedBlockIds(): string[] {
    return [...this.bytes.keys()];
  }

  /** Blocks stored but never referenced: what the GC would reclaim. */
  inFlightBlockIds(): string[] {
    return [...this.bytes.keys()].filter((id) => !this.refs.has(id));
  }

  storedBytes(): number {
    let n = 0;
    for (const b of this.bytes.values()) n += b.length;
    return n;
  }

  async writeStream(body: Readable, options: WriteStreamOptions = {}): Promise<StoredBody> {
    this.fault('writeStream');
    const blocks: BlockRef[] = [];
    let size = 0;
    try {
      for await (const data of splitIntoBlocks(body, this.blockSize)) {
        const blockId = randomBytes(16).toString('hex');
        this.bytes.set(blockId, data);
        blocks.push({ blockId, size: data.length, tier: options.tier ?? this.tier });
        size += data.length;
      }
    } catch (e) {
      await this.discard(blocks);
      throw e;
    }
    return { blocks, size };
  }

  async addRefs(blocks: BlockRef[], ref: string): Promise<void> {
    this.fault('addRefs');
    const missing = blocks.find((b) => !this.bytes.has(b.blockId));
    if (missing) throw new BlockUnavailableError(missing.blockId, 'no status: expired or deleted');
    for (const b of blocks) {
      const set = this.refs.get(b.blockId) ?? new Set<string>();
      set.add(ref);
      this.refs.set(b.blockId, set);
    }
  }

  async moveRefs(moves: RefMove[], to: string): Promise<void> {
    this.fault('moveRefs');
    for (const { block, from } of moves) {
      const set = this.refs.get(block.blockId);
      // as the real one: a block with no reference left here is deleted or still in flight
      if (!this.bytes.has(block.blockId)) throw new BlockUnavailableError(block.blockId, 'no status: expired or deleted');
      const refs = set ?? new Set<string>();
      refs.delete(from);
      refs.add(to);
      this.refs.set(block.blockId, refs);
    }
  }

  async releaseRefs(blocks: BlockRef[], ref: string): Promise<void> {
    this.fault('releaseRefs');
    for (const b of blocks) {
      const set = this.refs.get(b.blockId);
      if (!set) continue;
      set.delete(ref);
      if (set.size === 0) {
        this.refs.delete(b.blockId);
        this.bytes.delete(b.blockId);
      }
    }
  }

  async discard(blocks: BlockRef[]): Promise<void> {
    this.fault('discard');
    for (const b of blocks) if (!this.refs.has(b.blockId)) this.bytes.delete(b.blockId);
  }

  openRead(blocks: BlockRef[], range?: { start: number; endInclusive: number }): Readable {
    const slices = planRange(blocks, range);
    const bytes = this.bytes;
    async function* generate(): AsyncGenerator<Buffer> {
      for (const s of slices) {
        const data = bytes.get(s.block.blockId);
        if (!data) throw new BlockNotFoundError(s.block.blockId, s.block.tier);
        yield data.subarray(s.start, s.endExclusive);
      }
    }
    return Readable.from(generate(), { objectMode: false, highWaterMark: 1 });
  }

  private fault(op: Op): void {
    const e = this.faults.get(op);
    if (e) {
      this.faults.delete(op);
      throw e;
    }
  }
}
