/**
 * Cassandra requests written together per event-loop turn instead of one socket write each.
 *
 * cassandra-driver 4.x queues a connection's requests in a WriteQueue and writes what is queued
 * from `process.nextTick`, i.e. at the end of the callback that issued them. A server answers
 * each client request from its own callback (one socket read each), so under load every Cassandra
 * request became its own `write()` on the socket: the gateway's CPU profile put 15 % of its busy
 * time in the driver's socket writes (2026-12-05, `bench small --profile`). Deferring
 * the write to `setImmediate` (the check phase of the same loop turn, after every ready socket of
 * the poll phase has been handled) sends the requests of a whole turn in one write, up to the
 * driver's `coalescingThreshold` (64 KiB by default), as the driver already does between writes.
 * A request waits at most for the rest of the turn it was issued in.
 *
 * Measured (tools/bench/results/2026-12-05-vs-minio.s29-ab-coalesce{,2}.md: two A/B runs of 4 and 6
 * rounds, `CASSANDRA_COALESCE_WRITES=false` against `true` in one run): write syscalls per 4 KiB
 * GET 1.9-2.2 → 1.1-1.2 and per PUT 2.0-2.5 → 1.3-1.7 (2.4 in one round of six); CPU per PUT (gateway + Cassandra + Kafka)
 * -10 % and -14 %, PUT rate ×1.12 and ×1.03 (medians of round ratios); GET rate and CPU unchanged
 * within the noise (×1.05, ×0.97).
 *
 * Done by replacing `WriteQueue.prototype.run` (the driver has no option for it); the replacement
 * keeps the original's contract (`isRunning` / `canWrite` and one `process()` scheduled at a time).
 * If a driver upgrade changes that shape, nothing is patched and `coalesceDriverWrites` returns
 * false (write-coalescing.spec.ts fails, so the upgrade notices).
 */

interface WriteQueueLike {
  isRunning: boolean;
  canWrite: boolean;
  process(): void;
}

const PATCHED = Symbol.for('ostore.cassandra.writeCoalescing');

/** The driver's WriteQueue class (an internal module), or undefined when it is not where 4.x has it. */
export function driverWriteQueue(): { prototype: WriteQueueLike & { run(): void } } | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const writers = require('cassandra-driver/lib/writers') as { WriteQueue?: { prototype: WriteQueueLike & { run(): void } } };
    const proto = writers.WriteQueue?.prototype;
    if (!proto || typeof proto.run !== 'function' || typeof proto.process !== 'function') return undefined;
    return writers.WriteQueue;
  } catch {
    return undefined;
  }
}

/** Makes every driver connection write its queued requests once per event-loop turn; idempotent. */
export function coalesceDriverWrites(): boolean {
  const WriteQueue = driverWriteQueue();
  if (!WriteQueue) return false;
  const proto = WriteQueue.prototype as WriteQueueLike & { run(): void; [PATCHED]?: true };
  if (proto[PATCHED]) return true;
  proto.run = function run(this: WriteQueueLike): void {
    if (!this.isRunning && this.canWrite) {
      this.isRunning = true;
      setImmediate(() => this.process());
    }
  };
  proto[PATCHED] = true;
  return true;
}

/** Whether coalesceDriverWrites is in effect. */
export function driverWritesCoalesced(): boolean {
  const proto = driverWriteQueue()?.prototype as { [PATCHED]?: true } | undefined;
  return !!proto?.[PATCHED];
}
