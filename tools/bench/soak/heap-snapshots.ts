/**
 * Heap snapshots of the bench's gateway without an inspector: the gateway is started with
 * `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir>` (NODE_OPTIONS), and `take()` sends the
 * signal and waits until the new `.heapsnapshot` file stops growing. V8 runs a full GC before it
 * writes one, so the snapshot's total is the heap after GC. Writing one blocks the gateway's event
 * loop for seconds and costs memory: a run that takes snapshots is a diagnostic run, not a record.
 */
import { mkdirSync, readdirSync, statSync } from 'fs';
import { join } from 'path';

/** The NODE_OPTIONS that make a node process write a heap snapshot into `dir` on SIGUSR2. */
export function heapSnapshotNodeOptions(dir: string): string {
  return `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;
}

/** Takes heap snapshots of process `pid` started with `heapSnapshotNodeOptions(dir)`. */
export class HeapSnapshots {
  readonly taken: { file: string; tSec: number; ms: number }[] = [];

  constructor(
    private readonly pid: number,
    readonly dir: string,
    private readonly sleep: (ms: number) => Promise<unknown>,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  private files(): string[] {
    return readdirSync(this.dir).filter((f) => f.endsWith('.heapsnapshot'));
  }

  /** Signals the process and resolves with the snapshot's path once its size holds for 2 s. */
  async take(tSec: number, timeoutMs = 180_000): Promise<string> {
    const before = new Set(this.files());
    const start = Date.now();
    process.kill(this.pid, 'SIGUSR2');
    let file: string | undefined;
    let size = -1;
    let stableSince = Date.now();
    while (Date.now() - start < timeoutMs) {
      await this.sleep(500);
      file ??= this.files().find((f) => !before.has(f));
      if (!file) continue;
      const now = statSync(join(this.dir, file)).size;
      if (now !== size) {
        size = now;
        stableSince = Date.now();
      } else if (size > 0 && Date.now() - stableSince >= 2000) {
        const path = join(this.dir, file);
        this.taken.push({ file: path, tSec, ms: Date.now() - start });
        return path;
      }
    }
    throw new Error(`no complete heap snapshot of pid ${this.pid} in ${this.dir} within ${timeoutMs} ms`);
  }
}
