import { Readable } from 'stream';
import type { Counter, Histogram } from 'prom-client';
import type { Clock } from '@ostore/shared/clock';
import type { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { newBlockId, shardOf } from './block-id';
import { type BlockLifecycleSettings, sharedBuffersFor } from './block-lifecycle.settings';
import type { BlockManager, RefMove, StoredBody, WriteStreamOptions } from './block-manager';
import { BlockReclaimer } from './block-reclaimer';
import { BlockBufferPool, Md5Session } from './md5-offload';
import { splitIntoBlocks } from './block-splitter';
import type { BlockRef, BlockStores } from './block-store';
import { settleLimited, uniqueById } from './concurrency';
import { BlockContentionError, BlockCorruptError, BlockUnavailableError } from './errors';
import { pieces, planRange } from './range';
import { idleBuffersFor, lendChunks, ReadBufferPool } from './read-buffers';
import { BlockState, BlockStateRepository, hourBucketOf } from './state/block-state.repository';

/** A block's trusted status, as `inspect` reports it. */
export type BlockInfo = Omit<BlockState, 'firstRef'> & { referenced: boolean };

/** Most in-flight statuses remembered between writeStream and addRefs (saves a SERIAL read each). */
const PENDING_LIMIT = 10_000;

/**
 * The BlockManager over Cassandra status/reference rows and any BlockStore per tier.
 *
 * Write path, per block: (1) a GC candidate in `blocks_in_flight` and the in-flight status (TTL,
 * is_alive) are recorded, (2) only then are the bytes written. A process killed at any point
 * leaves either nothing or bytes that the GC finds through (1). Commit (`addRefs`) rewrites the
 * whole status without TTL together with the reference, in one compare-and-set.
 *
 * Release path: a GC candidate is recorded first, then the reference is deleted, then the shared
 * reclaim protocol (see BlockReclaimer) deletes the block if nothing refers to it — safe against a
 * concurrent addRefs of the same block (CopyObject): one of the two compare-and-sets loses. The
 * release of a block's only reference deletes it and starts the reclaim in one compare-and-set
 * (see releaseOne).
 */
export class CassandraBlockManager implements BlockManager {
  readonly digestsBody = true;
  private readonly log: ContextLogger;
  private readonly pending = new Map<string, BlockState>();
  private readonly written: Counter<'tier'>;
  private readonly writtenBytes: Counter<'tier'>;
  private readonly blockWriteSeconds: Histogram<'tier'>;
  private readonly buffers: BlockBufferPool;
  private readonly readBuffers: ReadBufferPool;

  constructor(
    private readonly repo: BlockStateRepository,
    private readonly stores: BlockStores,
    private readonly reclaimer: BlockReclaimer,
    private readonly settings: BlockLifecycleSettings,
    private readonly clock: Clock,
    metrics: MetricsRegistry,
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(CassandraBlockManager.name);
    const overflows = metrics.counter(
      'ostore_block_write_buffer_overflows_total',
      'Blocks of bodies being written held in ordinary memory because the shared write buffers (BLOCK_WRITE_BUFFER_BYTES) were all in use: each is hashed through a copy',
    );
    this.buffers = new BlockBufferPool(settings.blockSize, sharedBuffersFor(settings), () => overflows.inc());
    this.readBuffers = new ReadBufferPool(settings.readSize, idleBuffersFor(settings.readSize));
    this.written = metrics.counter('ostore_blocks_written_total', 'Blocks written to a block store', [
      'tier',
    ]);
    this.writtenBytes = metrics.counter('ostore_block_written_bytes_total', 'Bytes written to block stores', [
      'tier',
    ]);
    this.blockWriteSeconds = metrics.histogram(
      'ostore_block_write_duration_seconds',
      'Time to record and store one block',
      ['tier'],
    );
  }

  /** Bytes per block of new bodies. */
  get blockSize(): number {
    return this.settings.blockSize;
  }

  /**
   * Pipelined, with at most two blocks in memory: while the bytes of block n are being written,
   * block n+1 is read from the body, hashed and recorded as in flight; block n+2 is not read
   * before block n is stored (the body is paused by backpressure meanwhile). Per block the order
   * is always: in-flight records first, bytes second.
   */
  async writeStream(body: Readable, options: WriteStreamOptions = {}): Promise<StoredBody> {
    const store = this.stores.get(options.tier ?? this.stores.defaultTier);
    const blocks: BlockRef[] = [];
    let size = 0;
    let registering: Promise<unknown> | undefined;
    let inFlight: Promise<void> | undefined;
    const failed: { error?: unknown; set: boolean } = { set: false };
    // Rejections are captured at once, so none is ever unhandled while the next block is read.
    const capture = (error: unknown) => {
      if (!failed.set) Object.assign(failed, { error, set: true });
    };
    // Both MD5 passes (the block's, the body's) run in worker threads on the pooled shared buffers.
    const md5 = new Md5Session();
    try {
      for await (const data of splitIntoBlocks(body, this.settings.blockSize, () => this.buffers.acquire())) {
        if (failed.set) throw failed.error;
        const block: BlockRef = { blockId: newBlockId(), size: data.length, tier: store.tier };
        blocks.push(block);
        size += data.length;
        const started = process.hrtime.bigint();
        const registered = md5.block(data).then((hex) => this.register(block, hex));
        registering = registered.catch(capture);
        if (inFlight) await inFlight;
        if (failed.set) throw failed.error;
        inFlight = registered
          .then(() => store.write(block.blockId, data))
          .then(() => {
            // Hashed and stored: nothing holds the buffer any more.
            this.buffers.release(data);
            this.written.inc({ tier: store.tier });
            this.writtenBytes.inc({ tier: store.tier }, data.length);
            this.blockWriteSeconds.observe(
              { tier: store.tier },
              Number(process.hrtime.bigint() - started) / 1e9,
            );
          })
          .catch(capture);
      }
      if (inFlight) await inFlight;
      if (failed.set) throw failed.error;
      return { blocks, size, md5: await md5.finish() };
    } catch (e) {
      md5.drop();
      // Let the last registration and write settle, so that discard sees what they left.
      await registering;
      await inFlight;
      await this.discard(blocks).catch((err: unknown) =>
        this.log.warn('could not discard the blocks of a failed body; the GC will', {
          blocks: blocks.length,
          err: (err as Error).message,
        }),
      );
      throw e;
    }
  }

  async addRefs(blocks: BlockRef[], ref: string): Promise<void> {
    const added: BlockRef[] = [];
    const errors = await settleLimited(uniqueById(blocks), this.settings.concurrency, async (b) => {
      if (await this.addRef(b, ref)) added.push(b);
    });
    if (errors.length === 0) return;
    const undo = await settleLimited(added, this.settings.concurrency, (b) => this.releaseOne(b, ref));
    if (undo.length) {
      this.log.warn('could not roll back references of a failed addRefs; the GC will find them', {
        ref,
        blocks: added.length,
        err: (undo[0] as Error).message,
      });
    }
    throw errors[0];
  }

  /**
   * One compare-and-set per block (BlockStateRepository.moveRefs), on the status read at the
   * session consistency: the compare-and-set on `version` decides, and a stale read only costs a
   * retry, whose read is SERIAL. Per block of a completed multipart upload that is one read and one
   * Paxos round, where `addRefs` then `releaseRefs` cost two SERIAL reads, two Paxos rounds, a read
   * and a GC candidate.
   */
  async moveRefs(moves: RefMove[], to: string): Promise<void> {
    const byBlock = new Map<string, { block: BlockRef; from: string[] }>();
    for (const m of moves) {
      const entry = byBlock.get(m.block.blockId);
      if (entry) entry.from.push(m.from);
      else byBlock.set(m.block.blockId, { block: m.block, from: [m.from] });
    }
    const errors = await settleLimited([...byBlock.values()], this.settings.concurrency, (m) =>
      this.moveOne(m.block, m.from, to),
    );
    if (errors.length) throw errors[0];
  }

  async releaseRefs(blocks: BlockRef[], ref: string): Promise<void> {
    const errors = await settleLimited(uniqueById(blocks), this.settings.concurrency, (b) =>
      this.releaseOne(b, ref),
    );
    if (errors.length) throw errors[0];
  }

  async discard(blocks: BlockRef[]): Promise<void> {
    const errors = await settleLimited(uniqueById(blocks), this.settings.concurrency, async (b) => {
      this.pending.delete(b.blockId);
      const outcome = await this.reclaimer.reclaim(b, {
        reason: 'discarded',
        writingCreatedBefore: Number.POSITIVE_INFINITY,
        trustAbsent: false,
      });
      if (outcome === 'referenced')
        this.log.warn('discard of a referenced block ignored', { blockId: b.blockId });
    });
    if (errors.length) throw errors[0];
  }

  /**
   * Reads one slice at a time (the store's preferred read size, else `readSize`), only when the
   * consumer wants more: the stream buffers at most one slice ahead.
   */
  openRead(blocks: BlockRef[], range?: { start: number; endInclusive: number }): Readable {
    const slices = planRange(blocks, range);
    const stores = this.stores;
    const readSize = this.settings.readSize;
    const pool = this.readBuffers;
    async function* generate(): AsyncGenerator<Buffer> {
      for (const slice of slices) {
        const store = stores.get(slice.block.tier);
        const id = slice.block.blockId;
        // A store that can: one open per block, reads into pooled buffers (see ReadBufferPool).
        const reader = store.openReader ? await store.openReader(id) : undefined;
        try {
          for (const [from, to] of pieces(
            slice.start,
            slice.endExclusive,
            store.preferredReadSize ?? readSize,
          )) {
            let data: Buffer;
            let got: number;
            if (reader) {
              data = pool.acquire(to - from);
              got = await reader.readInto(data, from);
            } else {
              data = await store.read(id, from, to);
              got = data.length;
            }
            if (got !== to - from)
              throw new BlockCorruptError(id, `read ${got} bytes at ${from}, expected ${to - from}`);
            yield data;
          }
        } finally {
          await reader?.close();
        }
      }
    }
    return lendChunks(Readable.from(generate(), { objectMode: false, highWaterMark: 1 }), pool);
  }

  /** The trusted status of a block (undefined when absent, expired or otherwise not alive). */
  async inspect(blockId: string): Promise<BlockInfo | undefined> {
    const read = await this.repo.read(blockId);
    if (read.kind !== 'alive') return undefined;
    const { firstRef, ...state } = read.state;
    return { ...state, referenced: firstRef !== undefined };
  }

  /** Records a block as in flight: its GC candidate and its TTL'd 'writing' status (both before any byte). */
  private async register(block: BlockRef, md5: string): Promise<void> {
    const createdAt = this.clock.now();
    const [, state] = await Promise.all([
      this.repo.recordCandidate(
        {
          shard: shardOf(block.blockId, this.settings.gcShards),
          hourBucket: hourBucketOf(createdAt.getTime()),
          blockId: block.blockId,
          reason: 'write',
          tier: block.tier,
          size: block.size,
          createdAt,
        },
        this.settings.candidateTtlSeconds,
      ),
      this.repo.insertWriting(
        { blockId: block.blockId, md5, size: block.size, tier: block.tier, createdAt },
        this.settings.inFlightTtlSeconds,
      ),
    ]);
    if (!state) throw new Error(`block id ${block.blockId} already in use`);
    this.remember(state);
  }

  /** True when this call created the reference, false when it was already there. */
  private async addRef(block: BlockRef, ref: string): Promise<boolean> {
    let state = this.pending.get(block.blockId);
    for (let attempt = 0; attempt < this.settings.casAttempts; attempt++) {
      if (!state) {
        const read = await this.repo.read(block.blockId);
        if (read.kind === 'absent')
          throw new BlockUnavailableError(block.blockId, 'no status: expired or deleted');
        if (read.kind === 'broken')
          throw new BlockUnavailableError(block.blockId, `status ${read.status} is not alive`);
        if (read.state.status === 'deleting') throw new BlockUnavailableError(block.blockId, 'being deleted');
        state = read.state;
      }
      const result = await this.repo.commitRef(state, ref, this.clock.now());
      if (result.applied) {
        this.pending.delete(block.blockId);
        return true;
      }
      if (result.refExisted && result.current?.status === 'committed') {
        this.pending.delete(block.blockId);
        return false;
      }
      this.pending.delete(block.blockId);
      state = undefined;
      this.reclaimer.conflict('add-ref');
    }
    throw new BlockContentionError(block.blockId, this.settings.casAttempts);
  }

  private async moveOne(block: BlockRef, from: string[], to: string): Promise<void> {
    for (let attempt = 0; attempt < this.settings.casAttempts; attempt++) {
      // the first read is a hint at the session consistency; after a lost round, SERIAL
      let read = await this.repo.read(block.blockId, attempt > 0);
      if (attempt === 0 && (read.kind !== 'alive' || read.state.status === 'deleting'))
        read = await this.repo.read(block.blockId); // never refuse on a hint
      if (read.kind === 'absent') throw new BlockUnavailableError(block.blockId, 'no status: expired or deleted');
      if (read.kind === 'broken') throw new BlockUnavailableError(block.blockId, `status ${read.status} is not alive`);
      if (read.state.status === 'deleting') throw new BlockUnavailableError(block.blockId, 'being deleted');
      const result = await this.repo.moveRefs(read.state, from, to, this.clock.now());
      if (result.applied) {
        this.pending.delete(block.blockId);
        return;
      }
      if (result.refExisted && result.current?.status === 'committed') {
        // `to` is there already (a retried move, or one added by addRefs): what is left is to drop
        // any `from` still there, which releasing does (the block keeps `to`, so it stays)
        for (const ref of from) if (ref !== to) await this.releaseOne(block, ref);
        return;
      }
      this.reclaimer.conflict('move-ref');
    }
    throw new BlockContentionError(block.blockId, this.settings.casAttempts);
  }

  /**
   * Common case — `ref` is the block's only reference: the reference goes and the block moves to
   * 'deleting' in ONE compare-and-set (on the version read with `ref` as the only reference: it
   * loses to any addRef since, as markDeleting does), then bytes and status are removed
   * (BlockReclaimer.finish). Two Paxos rounds instead of four (deleteRef, SERIAL read,
   * markDeleting, forget). Otherwise (shared block, lost race, untrusted status, reference
   * already gone) the general path: delete the reference, then the reclaim protocol.
   */
  private async releaseOne(block: BlockRef, ref: string): Promise<void> {
    const now = this.clock.now();
    // Recorded before the reference goes: if we die before the block is deleted, the GC finds it.
    // The read only informs the compare-and-set below, so both go out together.
    const [, seen] = await Promise.all([
      this.repo.recordCandidate(
        {
          shard: shardOf(block.blockId, this.settings.gcShards),
          hourBucket: hourBucketOf(now.getTime()),
          blockId: block.blockId,
          reason: 'release',
          tier: block.tier,
          size: block.size,
          createdAt: now,
        },
        this.settings.candidateTtlSeconds,
      ),
      this.repo.readRefs(block.blockId, 2),
    ]);
    if (seen.state?.status === 'committed' && seen.refs.length === 1 && seen.refs[0] === ref) {
      const deleting = await this.repo.releaseLastRef(seen.state, ref, this.settings.inFlightTtlSeconds);
      if (deleting) return this.reclaimer.finish(deleting, 'released');
      this.reclaimer.conflict('release');
    }
    await this.repo.deleteRef(block.blockId, ref);
    await this.reclaimer.reclaim(block, { reason: 'released', trustAbsent: true });
  }

  private remember(state: BlockState): void {
    if (this.pending.size >= PENDING_LIMIT) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    this.pending.set(state.blockId, state);
  }
}
