import { FakeClock } from '@ostore/shared/clock/testing';
import { PartitionProgress } from './batch-runner';
import { FetchedBatch, SubscriptionShell } from './consumer-shell';
import { BatchHandler, QueueConsumerSettings, QueueMessage, silentLog } from './queue';
import { QueueMetrics } from './queue.metrics';

/** The shell alone: no backend behind it, batches are handed to `process` by the test. */
class BareSubscription extends SubscriptionShell {
  async start(): Promise<void> {}
  assignedPartitions(): number[] {
    return [0];
  }
  async committedOffsets(): Promise<Map<number, number>> {
    return new Map();
  }
  protected async shutdown(): Promise<void> {}
}

const messages = (n: number): QueueMessage[] =>
  Array.from({ length: n }, (_, i) => ({ queue: 'versions', partition: 0, offset: i, value: Buffer.from(`m${i}`) }));

describe(SubscriptionShell.name, () => {
  it("paces a partition by the settings' clock, not by the process's own time", async () => {
    const clock = new FakeClock(new Date('2026-12-07T00:00:00Z'));
    const chunks: number[] = [];
    // Each chunk takes a second of the fake clock: the limiter owes no wait if it reads that clock.
    const handler: BatchHandler = async (b) => {
      chunks.push(b.messages.length);
      clock.advance(1000);
    };
    const settings: QueueConsumerSettings = { group: 'test', clock };
    const sut = new BareSubscription({
      queue: 'versions',
      handler,
      options: { ratePerPartition: 2 },
      settings,
      metrics: new QueueMetrics(),
      log: silentLog,
    });
    // The batch is aborted as its second chunk is about to start: that chunk still runs if the
    // limiter owes no wait, and is handed back at once if it asked for one (it read another clock).
    // Either way the third chunk is handed back.
    const abort = new AbortController();
    let starts = 0;
    const batch: FetchedBatch = {
      partition: 0,
      messages: messages(5),
      progress: new PartitionProgress(0),
      commit: async () => undefined,
      signal: abort.signal,
      mayStart: () => {
        if (++starts > 1) abort.abort();
        return true;
      },
      tickMs: 1000,
    };

    const result = await sut.process(batch);

    expect(chunks).toEqual([2, 2]);
    expect(result.handedBack).toBe(true);
    expect(result.position).toBe(4);
  });
});
