import { HandBack, QueueBatch, QueueMessage } from './queue';
import { PartitionProgress, runBatch, BatchRun } from './batch-runner';
import { QueueMetrics } from './queue.metrics';
import { TokenBucket } from './token-bucket';

const messages = (from: number, n: number): QueueMessage[] =>
  Array.from({ length: n }, (_, i) => ({
    queue: 'versions',
    partition: 0,
    offset: from + i,
    value: Buffer.from(`m${from + i}`),
  }));

/** Polls `cond` on the event loop until it holds, failing after `ms`. */
async function until(what: string, cond: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe(runBatch.name, () => {
  let commits: number[];
  let metrics: QueueMetrics;
  const run = (over: Partial<BatchRun>): BatchRun => ({
    queue: 'versions',
    partition: 0,
    messages: messages(0, 5),
    handler: async () => undefined,
    progress: new PartitionProgress(0),
    commit: async (p) => void commits.push(p),
    maxBatchSize: 100,
    signal: new AbortController().signal,
    mayStart: () => true,
    tickMs: 5,
    metrics,
    ...over,
  });
  beforeEach(() => {
    commits = [];
    metrics = new QueueMetrics();
  });

  it('treats a resolved handler call as all done and commits after the last message', async () => {
    const sut = await runBatch(run({ messages: messages(10, 5), progress: new PartitionProgress(10) }));
    expect(sut).toEqual({
      processed: 5,
      position: 15,
      failure: undefined,
      handedBack: false,
      abandoned: false,
      commitError: undefined,
    });
    expect(commits).toEqual([15]);
    expect((await metrics.processed.get()).values[0].value).toBe(5);
  });

  it('hands chunks of at most maxBatchSize to the handler, in order', async () => {
    const seen: number[][] = [];
    await runBatch(
      run({ maxBatchSize: 2, handler: async (b) => void seen.push(b.messages.map((m) => m.offset)) }),
    );
    expect(seen).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('stops at a failure: position is the first undone message, later chunks are not delivered', async () => {
    const seen: number[] = [];
    const boom = new Error('boom');
    const sut = await runBatch(
      run({
        maxBatchSize: 3,
        handler: async (b) => {
          for (const m of b.messages) {
            seen.push(m.offset);
            if (m.offset === 4) throw boom; // in the middle of the second chunk [3, 4, 5]
            b.done(m);
          }
        },
        messages: messages(0, 9),
      }),
    );
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(sut.failure).toBe(boom);
    expect(sut.position).toBe(4);
    expect(sut.processed).toBe(4);
    expect(commits).toEqual([4]);
    expect((await metrics.failed.get()).values[0].value).toBe(2); // 4 and 5 come again
  });

  it('commits only the contiguous done prefix while the handler still works', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const running = runBatch(
      run({
        handler: async (b: QueueBatch) => {
          const [m0, m1, , m3, m4] = b.messages;
          [m1, m0, m3, m4].forEach((m) => b.done(m));
          await released;
        },
      }),
    );
    await until('the prefix 0..1 to be committed', () => commits.includes(2));
    expect(Math.max(...commits)).toBe(2);
    release();
    const sut = await running;
    expect(sut.position).toBe(5);
    expect(commits[commits.length - 1]).toBe(5);
  });

  it('hands back on abort: what is done is committed, the rest is not, and it is no failure', async () => {
    const stop = new AbortController();
    const running = runBatch(
      run({
        signal: stop.signal,
        handler: async (b) => {
          b.done(b.messages[0]);
          b.done(b.messages[1]);
          await new Promise((_, reject) => b.signal.addEventListener('abort', () => reject(b.signal.reason)));
        },
      }),
    );
    await until('the first two to be committed', () => commits.includes(2));
    stop.abort(new HandBack('stopping'));
    const sut = await running;
    expect(sut).toMatchObject({ handedBack: true, failure: undefined, position: 2, processed: 2 });
  });

  it('abandons a handler that ignores its aborted signal past the grace time', async () => {
    const stop = new AbortController();
    let lateDone: (() => void) | undefined;
    const running = runBatch(
      run({
        signal: stop.signal,
        abandonAfterMs: 20,
        handler: async (b) => {
          b.done(b.messages[0]);
          lateDone = () => b.done(b.messages[1]);
          await new Promise(() => undefined); // never settles
        },
      }),
    );
    await until('the handler to start', () => lateDone !== undefined);
    stop.abort(new HandBack('stopping'));
    const sut = await running;
    expect(sut).toMatchObject({ handedBack: true, abandoned: true, position: 1, processed: 1 });
    lateDone!();
    expect(sut.processed).toBe(1);
    expect(commits).toEqual([1]);
  });

  it('starts no new chunk once mayStart turns false', async () => {
    let calls = 0;
    const sut = await runBatch(
      run({ maxBatchSize: 2, mayStart: () => calls < 1, handler: async () => void calls++ }),
    );
    expect(calls).toBe(1);
    expect(sut).toMatchObject({ handedBack: true, position: 2 });
  });

  it('hands back when the heartbeat says the partition is gone', async () => {
    let signal: AbortSignal | undefined;
    const sut = await runBatch(
      run({
        tick: async () => {
          throw new Error('REBALANCE_IN_PROGRESS');
        },
        handler: async (b) => {
          signal = b.signal;
          await new Promise((_, reject) => b.signal.addEventListener('abort', () => reject(b.signal.reason)));
        },
      }),
    );
    expect(signal?.reason).toEqual(new HandBack('revoked'));
    expect(sut).toMatchObject({ handedBack: true, position: 0, processed: 0 });
    expect(commits).toEqual([]);
  });

  it('reports a failed final commit', async () => {
    const lost = new Error('lease lost');
    const sut = await runBatch(run({ commit: async () => Promise.reject(lost) }));
    expect(sut.commitError).toBe(lost);
    expect(sut.position).toBe(5);
  });

  it('rejects done() of a message from another batch', async () => {
    const sut = await runBatch(
      run({
        handler: async (b) => {
          b.done({ ...b.messages[0], offset: 99 });
        },
      }),
    );
    expect(String(sut.failure)).toMatch(/offset 99 is not in this batch/);
  });

  it('paces chunks to the rate limit', async () => {
    let now = 0;
    const limiter = new TokenBucket(2, 2, () => now);
    const calls: number[] = [];
    const sut = await runBatch(
      run({
        limiter,
        maxBatchSize: 100,
        handler: async (b) => {
          calls.push(b.messages.length);
          now += 1000;
        },
      }),
    );
    expect(calls).toEqual([2, 2, 1]); // chunks of the per-second rate
    expect(sut.position).toBe(5);
  });
});
