import { EventEmitter } from 'events';
import { coalesceDriverWrites, driverWriteQueue, driverWritesCoalesced } from './write-coalescing';

/**
 * A socket that records its writes and always accepts more; a write completes at once and calls
 * back on the next tick, as a net.Socket does for a write the kernel took synchronously.
 */
class RecordingSocket extends EventEmitter {
  readonly writes: Buffer[] = [];
  write(data: Buffer, callback: (err?: Error) => void): boolean {
    this.writes.push(data);
    process.nextTick(() => callback());
    return true;
  }
}

function operation(n: number) {
  return { canBeWritten: () => true, streamId: n, request: { write: () => Buffer.from(`request ${n};`) } };
}

/**
 * Pushes one request from each of `n` separate callbacks of the same loop turn (immediates queued
 * together all run in one check phase, each as its own callback, as a server's socket callbacks of
 * one poll phase do); resolves when all were handed over.
 */
async function pushFromSeparateCallbacks(n: number): Promise<RecordingSocket> {
  const WriteQueue = driverWriteQueue() as unknown as new (socket: unknown, encoder: unknown, options: unknown) => {
    push(op: unknown, cb: (err?: Error) => void): void;
  };
  const socket = new RecordingSocket();
  const queue = new WriteQueue(socket, {}, { socketOptions: { coalescingThreshold: 65536 } });
  await new Promise<void>((resolve, reject) => {
    let left = n;
    for (let i = 0; i < n; i++)
      setImmediate(() => queue.push(operation(i), (err) => (err ? reject(err) : --left === 0 && resolve())));
  });
  return socket;
}

describe('driver write coalescing', () => {
  it('finds the driver\'s WriteQueue where cassandra-driver 4.x keeps it', () => {
    expect(driverWriteQueue()).toBeDefined();
  });

  it('before the patch each callback\'s request is its own socket write; after it, one write per loop turn', async () => {
    expect(driverWritesCoalesced()).toBe(false);
    const before = await pushFromSeparateCallbacks(8);
    expect(before.writes).toHaveLength(8);

    expect(coalesceDriverWrites()).toBe(true);
    expect(coalesceDriverWrites()).toBe(true); // idempotent
    expect(driverWritesCoalesced()).toBe(true);
    const after = await pushFromSeparateCallbacks(8);
    expect(after.writes).toHaveLength(1);
    expect(after.writes[0].toString()).toBe(Array.from({ length: 8 }, (_, i) => `request ${i};`).join(''));
  });
});
