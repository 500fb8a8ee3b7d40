import { createHash, Hash } from 'crypto';
import { Worker } from 'worker_threads';
import { allocateAligned } from './aligned-memory';

/**
 * MD5 of large bodies off the event loop.
 *
 * A PUT of a big object needs two MD5 passes over every byte: the whole body's (its ETag) and each
 * block's (its status row, seed 004) — except over the first block, whose own MD5 is a copy of the
 * body's running hash at that point (so a body of one block, e.g. a multipart part no larger than
 * a block, is hashed once). At ~750 MB/s per core that was nearly half of the gateway's
 * main-thread time on large uploads (bench profile). Blocks live in SharedArrayBuffer memory (see
 * BlockBufferPool), so a worker thread can hash them without a copy while the event loop goes on
 * reading the socket and writing the previous block.
 *
 * One worker per process serves every upload: messages to it are handled in order, so a session's
 * blocks are folded into its running hash in the order they were posted. Buffers that are not
 * shared memory are hashed on the calling thread (same results, no offload).
 */
const WORKER_SOURCE = `
const { parentPort } = require('worker_threads');
const { createHash } = require('crypto');
const sessions = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'block') {
      const view = m.sab ? Buffer.from(m.sab, m.offset, m.length) : Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
      let h = sessions.get(m.session);
      const first = !h;
      if (!h) { h = createHash('md5'); sessions.set(m.session, h); }
      h.update(view);
      // The body's running hash after its first block is that block's own: one pass, not two.
      const own = first ? h.copy() : createHash('md5').update(view);
      parentPort.postMessage({ id: m.id, hex: own.digest('hex') });
    } else if (m.op === 'finish') {
      const h = sessions.get(m.session) || createHash('md5');
      sessions.delete(m.session);
      parentPort.postMessage({ id: m.id, hex: h.digest('hex') });
    } else if (m.op === 'drop') {
      sessions.delete(m.session);
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
  }
});
`;

interface Waiter {
  resolve(hex: string): void;
  reject(err: Error): void;
}

class Md5Worker {
  private worker?: Worker;
  private nextId = 1;
  private nextSession = 1;
  private readonly waiters = new Map<number, Waiter>();

  session(): number {
    return this.nextSession++;
  }

  request(message: Record<string, unknown>): Promise<string> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      // Referenced only while answers are awaited: an idle worker never keeps the process alive.
      if (this.waiters.size === 0) w.ref();
      this.waiters.set(id, { resolve, reject });
      w.postMessage({ ...message, id });
    });
  }

  post(message: Record<string, unknown>): void {
    this.worker?.postMessage(message);
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER_SOURCE, { eval: true });
    w.on('message', (m: { id: number; hex?: string; error?: string }) => {
      const waiter = this.waiters.get(m.id);
      if (!waiter) return;
      this.waiters.delete(m.id);
      if (this.waiters.size === 0) w.unref();
      if (m.error !== undefined) waiter.reject(new Error(`md5 worker: ${m.error}`));
      else waiter.resolve(m.hex!);
    });
    const fail = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const waiter of this.waiters.values()) waiter.reject(err);
      this.waiters.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`md5 worker exited (${code})`)));
    // After the listeners: adding a 'message' listener refs the worker's port again.
    w.unref();
    this.worker = w;
    return w;
  }
}

const shared = new Md5Worker();

function isShared(buf: Buffer): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && buf.buffer instanceof SharedArrayBuffer;
}

/**
 * The MD5s of one body written block by block: `block()` in body order, then `finish()` once.
 * Each block's digest resolves as soon as the worker reached it; `finish()` gives the whole body's.
 */
export class Md5Session {
  private readonly id = shared.session();
  private local?: Hash;
  private offloaded = false;
  private done = false;

  /** Folds the block into the body's MD5 and resolves with the block's own MD5 (hex). */
  block(data: Buffer): Promise<string> {
    if (this.done) return Promise.reject(new Error('md5 session already finished'));
    if (isShared(data) && !this.local) {
      this.offloaded = true;
      return shared.request({
        op: 'block',
        session: this.id,
        sab: data.buffer,
        offset: data.byteOffset,
        length: data.length,
      });
    }
    if (this.offloaded) {
      // Ordinary memory after offloading began: keep the order by sending the worker a copy.
      return shared.request({ op: 'block', session: this.id, bytes: data });
    }
    const first = !this.local;
    (this.local ??= createHash('md5')).update(data);
    // As in the worker: after the first block the body's running hash is the block's own.
    const own = first ? this.local.copy() : createHash('md5').update(data);
    return Promise.resolve(own.digest('hex'));
  }

  /** The MD5 of every block passed to `block()`, in order. */
  async finish(): Promise<Buffer> {
    if (this.done) throw new Error('md5 session already finished');
    this.done = true;
    if (this.offloaded) return Buffer.from(await shared.request({ op: 'finish', session: this.id }), 'hex');
    return (this.local ?? createHash('md5')).digest();
  }

  /** Forgets the session (a failed body): the worker drops its running hash. */
  drop(): void {
    if (this.done) return;
    this.done = true;
    if (this.offloaded) shared.post({ op: 'drop', session: this.id });
  }
}

/**
 * Reusable block-sized buffers in shared memory. Reuse spares the allocation and garbage
 * collection of a fresh multi-MiB buffer per block; shared memory lets Md5Session hash them in
 * the worker without a copy; page-aligned memory (see aligned-memory.ts) lets a block store write
 * them with O_DIRECT.
 *
 * Bounded: at most `maxShared` shared buffers exist at once (all of them kept for reuse once
 * released). Shared memory must not be churned: V8 does not count a SharedArrayBuffer towards the
 * heap pressure that triggers collection, and the worker's views of one keep it alive until the
 * worker collects too — so freshly allocated shared blocks pile up (the bench saw 1 GiB RSS).
 * Beyond the bound `acquire` hands out an ordinary buffer (hashed by a copy to the worker).
 * A shared buffer never released (a failed write) is counted out again when it is collected.
 */
export class BlockBufferPool {
  private readonly idle: Buffer[] = [];
  private readonly owned = new WeakSet<ArrayBufferLike>();
  private live = 0;
  private readonly collected = new FinalizationRegistry<void>(() => {
    this.live--;
  });

  constructor(
    readonly blockSize: number,
    private readonly maxShared = 12,
  ) {}

  /** Shared buffers currently in existence (idle or handed out). */
  get sharedCount(): number {
    return this.live;
  }

  acquire(): Buffer {
    const reused = this.idle.pop();
    if (reused) return reused;
    if (this.live >= this.maxShared) return Buffer.allocUnsafeSlow(this.blockSize);
    const buf =
      allocateAligned(this.blockSize, { shared: true }) ?? Buffer.from(new SharedArrayBuffer(this.blockSize));
    this.live++;
    this.owned.add(buf.buffer);
    this.collected.register(buf.buffer, undefined, buf.buffer);
    return buf;
  }

  /** Gives a buffer back (also a view of its first bytes: the last block of a body); others are ignored. */
  release(buf: Buffer): void {
    if (!this.owned.has(buf.buffer) || buf.byteOffset !== 0) return;
    const sab = buf.buffer;
    if (this.idle.some((b) => b.buffer === sab)) return;
    this.idle.push(Buffer.from(sab, 0, this.blockSize));
  }
}
