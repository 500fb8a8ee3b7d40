import type { Readable } from 'stream';

/**
 * Reusable buffers for the chunks `openRead` yields. A large GET used to allocate a fresh buffer
 * per read (64 × 1 MiB for a 64 MiB object); the external memory churn kept V8's garbage collector
 * busy. A consumer that is done with a chunk (the socket wrote it) gives it back through
 * `recyclerOf(stream)`, and the next read fills it again.
 *
 * Only buffers this pool handed out are taken back, each once; at most `maxIdle` wait for reuse
 * (the rest are left to the garbage collector), so the pool holds at most `maxIdle × bufferSize`.
 * A consumer that never gives chunks back costs what an allocation per read cost before.
 */
/**
 * How many idle buffers of `bufferSize` a pool keeps: 16, fewer above 2 MiB so that idle ones hold
 * at most 32 MiB, and never fewer than 4 (a few large GETs in flight keep cycling without new
 * allocations).
 */
export function idleBuffersFor(bufferSize: number): number {
  return Math.max(4, Math.min(16, Math.floor((32 * 1024 * 1024) / bufferSize)));
}

export class ReadBufferPool {
  private readonly idle: Buffer[] = [];
  private readonly idleSet = new Set<ArrayBufferLike>();
  private readonly lent = new WeakSet<ArrayBufferLike>();

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
      buf = Buffer.allocUnsafeSlow(this.bufferSize);
      this.lent.add(buf.buffer);
    }
    return length === this.bufferSize ? buf : buf.subarray(0, length);
  }

  /** Takes back a chunk `acquire` handed out (any view of it); others and repeats are ignored. */
  release(chunk: Buffer): void {
    const ab = chunk.buffer;
    if (!this.lent.has(ab) || this.idleSet.has(ab) || this.idle.length >= this.maxIdle) return;
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
