import type { Readable } from 'stream';
import { allocateAligned, isAligned } from './aligned-memory';

/**
 * How many idle buffers of `bufferSize` a pool keeps: 16, fewer above 2 MiB so that idle ones hold
 * at most 32 MiB, and never fewer than 4 (a few large GETs in flight keep cycling without new
 * allocations).
 */
export function idleBuffersFor(bufferSize: number): number {
  return Math.max(4, Math.min(16, Math.floor((32 * 1024 * 1024) / bufferSize)));
}

/**
 * Reusable buffers for the chunks `openRead` yields. A large GET used to allocate a fresh buffer
 * per read (64 × 1 MiB for a 64 MiB object); the external memory churn kept V8's garbage collector
 * busy. A consumer that is done with a chunk (the socket wrote it) gives it back through
 * `recyclerOf(stream)`, and the next read fills it again.
 *
 * Only buffers this pool handed out are taken back, each once; at most `maxIdle` wait for reuse
 * (the rest are left to the garbage collector), so the pool holds at most `maxIdle × bufferSize`.
 * A consumer that never gives chunks back costs what an allocation per read cost before.
 *
 * Up to `maxIdle` of the buffers are page-aligned memory, so a block store can read into them
 * with O_DIRECT; no more, so that every one of them finds a place among the idle ones when it
 * comes back (aligned memory is costly to make and must not be churned). Beyond that, and for
 * one that was never given back until it is collected, ordinary buffers.
 */
export class ReadBufferPool {
  private readonly idle: Buffer[] = [];
  private readonly idleSet = new Set<ArrayBufferLike>();
  private readonly lent = new WeakSet<ArrayBufferLike>();
  private aligned = 0;
  private readonly collected = new FinalizationRegistry<void>(() => {
    this.aligned--;
  });

  constructor(
    readonly bufferSize: number,
    private readonly maxIdle = 16,
  ) {}

  /** Buffers waiting for reuse. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** A buffer of exactly `length` bytes (a view of a pooled one when `length` fits). */
  acquire(length: number): Buffer {
    if (length > this.bufferSize) return Buffer.allocUnsafeSlow(length);
    let buf = this.idle.pop();
    if (buf) this.idleSet.delete(buf.buffer);
    else {
      buf = this.allocate();
      this.lent.add(buf.buffer);
    }
    return length === this.bufferSize ? buf : buf.subarray(0, length);
  }

  private allocate(): Buffer {
    if (this.aligned < this.maxIdle) {
      const buf = allocateAligned(this.bufferSize);
      if (buf) {
        this.aligned++;
        this.collected.register(buf.buffer, undefined);
        return buf;
      }
    }
    return Buffer.allocUnsafeSlow(this.bufferSize);
  }

  /** Takes back a chunk `acquire` handed out (any view of it); others and repeats are ignored. */
  release(chunk: Buffer): void {
    const ab = chunk.buffer;
    if (!this.lent.has(ab) || this.idleSet.has(ab)) return;
    if (this.idle.length >= this.maxIdle) {
      // Full: an aligned buffer takes the place of an ordinary one, never the other way round.
      const ordinary = isAligned(chunk) ? this.idle.findIndex((b) => !isAligned(b)) : -1;
      if (ordinary < 0) return;
      this.idleSet.delete(this.idle[ordinary].buffer);
      this.idle.splice(ordinary, 1);
    }
    this.idleSet.add(ab);
    this.idle.push(Buffer.from(ab, 0, this.bufferSize));
  }
}

const RECYCLER = Symbol('ostore.blocks.recycler');

type Lending = Readable & { [RECYCLER]?: (chunk: Buffer) => void };

/** Marks the chunks of `stream` as lent from `pool` (see recyclerOf). */
export function lendChunks<S extends Readable>(stream: S, pool: ReadBufferPool): S {
  (stream as Lending)[RECYCLER] = (chunk) => pool.release(chunk);
  return stream;
}

/**
 * For a stream whose chunks come from a pool: the function that gives a chunk back. Call it only
 * once nothing refers to the chunk any more (e.g. in the callback of the socket write that sent
 * it), and never touch the chunk afterwards. Undefined for other streams.
 */
export function recyclerOf(stream: Readable): ((chunk: Buffer) => void) | undefined {
  return (stream as Lending)[RECYCLER];
}
