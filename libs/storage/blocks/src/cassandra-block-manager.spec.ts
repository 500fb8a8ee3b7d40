import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { resolveBlockLifecycle } from './block-lifecycle.settings';
import { BlockReclaimer } from './block-reclaimer';
import { BlockStore, BlockStores } from './block-store';
import { CassandraBlockManager } from './cassandra-block-manager';
import { BlockCorruptError } from './errors';
import { recyclerOf } from './read-buffers';
import type { BlockState, BlockStateRepository, StatusRead } from './state/block-state.repository';
import { LocalFsBlockStore } from './stores/local-fs-block-store';
import { InMemoryBlockStore } from './testing';

/** Just enough of the status table for the write and discard paths (the real one is tested against Cassandra). */
class FakeRepository {
  readonly rows = new Map<string, BlockState>();
  async recordCandidate(): Promise<void> {}
  async insertWriting(s: Omit<BlockState, 'status' | 'version'>): Promise<BlockState> {
    const state: BlockState = { ...s, status: 'writing', version: 1 };
    this.rows.set(s.blockId, state);
    return state;
  }
  async read(blockId: string): Promise<StatusRead> {
    const state = this.rows.get(blockId);
    return state ? { kind: 'alive', state } : { kind: 'absent' };
  }
  async markDeleting(s: BlockState): Promise<BlockState> {
    const next = { ...s, status: 'deleting' as const, version: s.version + 1 };
    this.rows.set(s.blockId, next);
    return next;
  }
  async forget(blockId: string): Promise<boolean> {
    return this.rows.delete(blockId);
  }
}

/** A store whose writes wait until released, recording how many overlap. */
class SlowStore extends InMemoryBlockStore {
  /** Writes begun, finished or not. */
  started = 0;
  inFlight = 0;
  maxInFlight = 0;
  private gates: (() => void)[] = [];
  override async write(blockId: string, data: Buffer): Promise<void> {
    this.started++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise<void>((r) => this.gates.push(r));
    await super.write(blockId, data);
    this.inFlight--;
  }
  releaseAll(): void {
    for (const g of this.gates.splice(0)) g();
  }
}

const setup = <S extends BlockStore = InMemoryBlockStore>(
  store: S = new InMemoryBlockStore() as unknown as S,
) => {
  const repo = new FakeRepository();
  const settings = resolveBlockLifecycle({ blockSize: 4, readSize: 3 });
  const stores = new BlockStores([store]);
  const metrics = new MetricsRegistry('test', false);
  const logger = new JsonLogger('test', 'silent');
  const reclaimer = new BlockReclaimer(
    repo as unknown as BlockStateRepository,
    stores,
    settings,
    metrics,
    logger,
  );
  const sut = new CassandraBlockManager(
    repo as unknown as BlockStateRepository,
    stores,
    reclaimer,
    settings,
    new FakeClock(),
    metrics,
    logger,
  );
  return { sut, repo, store };
};

/** Waits (5 s at most) until `condition` holds. */
const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 5 s');
    await new Promise((r) => setTimeout(r, 1));
  }
};

const drain = async (r: Readable) => {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts).toString();
};

describe(CassandraBlockManager.name, () => {
  it('stores one block while reading the next, and reads no further until it is stored', async () => {
    const store = new SlowStore();
    const { sut } = setup(store);
    let pulled = 0;
    async function* body() {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield Buffer.from('abcd');
      }
    }
    const done = sut.writeStream(Readable.from(body()));
    for (let round = 1; round <= 10; round++) {
      // Let the pipeline run until it blocks on the store with this round's block, the previous one
      // stored (block digests come from a worker thread, so the next write may start late).
      await until(() => store.started === round && store.inFlight === 1);
      // and give it the chance to read further than it should
      await new Promise((r) => setTimeout(r, 5));
      expect(store.inFlight).toBe(1);
      // Blocks taken from the body: those stored, plus the one being stored, plus at most one read ahead
      // (Readable.from itself buffers one more chunk).
      expect(pulled).toBeLessThanOrEqual(store.blocks.size + 3);
      store.releaseAll();
    }
    store.releaseAll();
    const stored = await done;
    expect(stored.size).toBe(40);
    expect(stored.blocks).toHaveLength(10);
    expect(store.maxInFlight).toBe(1);
  });

  it('records every block as in flight before writing its bytes', async () => {
    const { sut, repo, store } = setup();
    const stored = await sut.writeStream(Readable.from([Buffer.from('0123456789')]));
    expect(stored.blocks.map((b) => b.size)).toEqual([4, 4, 2]);
    for (const b of stored.blocks) {
      expect(repo.rows.get(b.blockId)).toMatchObject({ status: 'writing', size: b.size, tier: 'standard' });
      expect(store.blocks.has(b.blockId)).toBe(true);
    }
    expect(repo.rows.get(stored.blocks[0].blockId)!.md5).toBe('eb62f6b9306db575c2d596b1279627a4'); // md5('0123')
  });

  it('discards what it wrote when the body fails midway', async () => {
    const { sut, repo, store } = setup();
    async function* body() {
      yield Buffer.from('abcdefgh');
      yield Buffer.from('ij');
      throw new Error('client went away');
    }
    await expect(sut.writeStream(Readable.from(body()))).rejects.toThrow('client went away');
    expect(store.blocks.size).toBe(0);
    expect(repo.rows.size).toBe(0);
  });

  it('streams ranges across blocks in read units, only as fast as the consumer reads', async () => {
    const { sut, store } = setup();
    const stored = await sut.writeStream(Readable.from([Buffer.from('0123456789abcdef')]));
    expect(await drain(sut.openRead(stored.blocks))).toBe('0123456789abcdef');
    expect(await drain(sut.openRead(stored.blocks, { start: 3, endInclusive: 12 }))).toBe('3456789abc');

    const reads: number[] = [];
    const read = store.read.bind(store);
    store.read = async (id, s, e) => {
      reads.push(s ?? 0);
      return read(id, s, e);
    };
    const sutStream = sut.openRead(stored.blocks);
    await new Promise((r) => setImmediate(r));
    const before = reads.length;
    expect(before).toBeLessThanOrEqual(2);
    expect(await drain(sutStream)).toBe('0123456789abcdef');
    expect(reads.length).toBe(8); // 4 blocks of 4 bytes in 3-byte units
  });
});

describe(`${CassandraBlockManager.name} reading a store with openReader (local files)`, () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ostore-read-'));
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  /** The fs store, counting opened and closed readers and plain reads. */
  const counted = () => {
    const store = new LocalFsBlockStore({ tier: 'standard', root, fsync: false });
    const calls = { opened: 0, closed: 0, reads: 0 };
    const open = store.openReader.bind(store);
    store.openReader = async (id) => {
      const r = await open(id);
      calls.opened++;
      return { readInto: (t, p) => r.readInto(t, p), close: () => (calls.closed++, r.close()) };
    };
    const read = store.read.bind(store);
    store.read = (id, s, e) => (calls.reads++, read(id, s, e));
    return { store, calls };
  };

  it('opens each block once, reads ranges into pooled buffers, and reuses the buffers given back', async () => {
    const { store, calls } = counted();
    const { sut } = setup(store);
    const stored = await sut.writeStream(Readable.from([Buffer.from('0123456789abcdef')]));
    expect(await drain(sut.openRead(stored.blocks))).toBe('0123456789abcdef');
    expect(await drain(sut.openRead(stored.blocks, { start: 3, endInclusive: 12 }))).toBe('3456789abc');
    expect(calls).toEqual({ opened: 4 + 4, closed: 8, reads: 0 });

    const stream = sut.openRead(stored.blocks);
    const recycle = recyclerOf(stream)!;
    expect(recycle).toBeDefined();
    const seen = new Set<ArrayBufferLike>();
    let text = '';
    let chunks = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      seen.add(chunk.buffer);
      text += chunk.toString();
      chunks++;
      recycle(chunk); // done with it, as the GET handler is once the socket wrote it
    }
    expect(text).toBe('0123456789abcdef');
    expect(chunks).toBe(8); // 4 blocks of 4 bytes in 3-byte units
    // The stream reads one chunk ahead: the chunks cycle through a few buffers, not one each.
    expect(seen.size).toBeLessThanOrEqual(3);
  });

  it('fails a block file shorter than its reference with BlockCorruptError and closes what it opened', async () => {
    const { store, calls } = counted();
    const { sut } = setup(store);
    const stored = await sut.writeStream(Readable.from([Buffer.from('0123456789')]));
    await fs.truncate(store.pathOf(stored.blocks[1].blockId), 2);
    await expect(drain(sut.openRead(stored.blocks))).rejects.toBeInstanceOf(BlockCorruptError);
    expect(calls.opened).toBe(2);
    expect(calls.closed).toBe(2);
  });

  it('closes the open block when the consumer stops early', async () => {
    const { store, calls } = counted();
    const { sut } = setup(store);
    const stored = await sut.writeStream(Readable.from([Buffer.from('0123456789abcdef')]));
    const stream = sut.openRead(stored.blocks);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      expect(chunk.toString()).toBe('012');
      break; // destroys the stream
    }
    await until(() => calls.closed === calls.opened);
    expect(calls.opened).toBeGreaterThanOrEqual(1);
  });
});
