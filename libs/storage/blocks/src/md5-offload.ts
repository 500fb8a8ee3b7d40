import { createHash, Hash } from 'crypto';
import { availableParallelism } from 'os';
import { Worker } from 'worker_threads';
import { allocateAligned } from './aligned-memory';

/**
 * MD5 of large bodies off the event loop, on two threads.
 *
 * A PUT of a big object needs two MD5 passes over every byte: the whole body's (its ETag) and each
 * block's (its status row, seed 004) — except over the first block, whose own MD5 is a copy of the
 * body's running hash at that point (so a body of one block, e.g. a multipart part no larger than
 * a block, is hashed once). At 580-750 MB/s per core, one thread doing both passes capped a
 * process's uploads at about 300 MiB/s, whatever the cores (the 64 MiB PUT of the MinIO bench).
 * Blocks live in SharedArrayBuffer memory (see BlockBufferPool), so worker threads hash them
 * without a copy while the event loop goes on reading the socket and writing the previous block.
 *
 * Two workers per process (one on a single core) serve every upload. A session's running hash
 * lives on its home worker, which folds its blocks in the order they were posted (a worker handles
 * its messages in order); a block's own hash is taken on the other worker at the same time. A
 * block's promise resolves once both passes are done, so its buffer may then be reused. Buffers
 * that are not shared memory are hashed on the calling thread (same results, no offload).
 */
const WORKER_SOURCE = `
const { parentPort } = require('worker_threads');
const { createHash } = require('crypto');
const sessions = new Map();
parentPort.on('message', (m) => {
  try {
    const view = () => m.sab ? Buffer.from(m.sab, m.offset, m.length) : Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
    if (m.op === 'fold') {
      let h = sessions.get(m.session);
      const first = !h;
      if (!h) { h = createHash('md5'); sessions.set(m.session, h); }
      h.update(view());
      // The body's running hash after its first block is that block's own: one pass, not two.
      parentPort.postMessage({ id: m.id, hex: first ? h.copy().digest('hex') : '' });
    } else if (m.op === 'own') {
      parentPort.postMessage({ id: m.id, hex: createHash('md5').update(view()).digest('hex') });
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
  private readonly waiters = new Map<number, Waiter>();

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

/** Two threads for the two passes; one where the process has a single core (no gain, only hand-offs). */
const workers = Array.from({ length: Math.min(2, availableParallelism()) }, () => new Md5Worker());
let nextSession = 0;

function isShared(buf: Buffer): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && buf.buffer instanceof SharedArrayBuffer;
}

/**
 * The MD5s of one body written block by block: `block()` in body order, then `finish()` once.
 * Each block's digest resolves once both its passes are done; `finish()` gives the whole body's.
 */
export class Md5Session {
  private readonly id = nextSession++;
  /** The worker holding this session's running hash; blocks' own hashes go to the other one. */
  private readonly home = workers[this.id % workers.length];
  private readonly other = workers[(this.id + 1) % workers.length];
  private local?: Hash;
  private offloaded = false;
  private done = false;

  /** Folds the block into the body's MD5 and resolves with the block's own MD5 (hex). */
  block(data: Buffer): Promise<string> {
    if (this.done) return Promise.reject(new Error('md5 session already finished'));
    if (isShared(data) && !this.local) {
      const view = { sab: data.buffer, offset: data.byteOffset, length: data.length };
      return this.offload(view);
    }
    if (this.offloaded) {
      // Ordinary memory after offloading began: keep the order by sending the workers a copy.
      return this.offload({ bytes: data });
    }
    const first = !this.local;
    (this.local ??= createHash('md5')).update(data);
    // As in the worker: after the first block the body's running hash is the block's own.
    const own = first ? this.local.copy() : createHash('md5').update(data);
    return Promise.resolve(own.digest('hex'));
  }

  private offload(view: Record<string, unknown>): Promise<string> {
    const first = !this.offloaded;
    this.offloaded = true;
    const folded = this.home.request({ op: 'fold', session: this.id, ...view });
    // the first block's own hash is the running hash's copy (one pass)
    if (first) return folded;
    return Promise.all([folded, this.other.request({ op: 'own', ...view })]).then(([, own]) => own);
  }

  /** The MD5 of every block passed to `block()`, in order. */
  async finish(): Promise<Buffer> {
    if (this.done) throw new Error('md5 session already finished');
    this.done = true;
    if (this.offloaded)
      return Buffer.from(await this.home.request({ op: 'finish', session: this.id }), 'hex');
    return (this.local ?? createHash('md5')).digest();
  }

  /** Forgets the session (a failed body): the worker drops its running hash. */
  drop(): void {
    if (this.done) return;
    this.done = true;
    if (this.offloaded) this.home.post({ op: 'drop', session: this.id });
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
    /** Called for each ordinary buffer handed out because the shared ones were all in use. */
    private readonly overflowed: () => void = () => undefined,
  ) {}

  /** Shared buffers currently in existence (idle or handed out). */
  get sharedCount(): number {
    return this.live;
  }

  acquire(): Buffer {
    const reused = this.idle.pop();
    if (reused) return reused;
    if (this.live >= this.maxShared) {
      this.overflowed();
      return Buffer.allocUnsafeSlow(this.blockSize);
    }
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
