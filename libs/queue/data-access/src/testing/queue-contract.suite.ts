import { waitFor } from '@ostore/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { QueueName } from '@ostore/queue/contracts';
import {
  BatchHandler,
  QueueConsumer,
  QueueConsumerSettings,
  QueueProducer,
  QueueSubscription,
  SubscribeOptions,
} from '../queue';

/** One metastore cluster's queues on the backend under test: fresh topics, `partitions` each. */
export interface QueueClusterUnderTest {
  producer: QueueProducer;
  /** Metrics registry the cluster's consumers report to. */
  metrics: MetricsRegistry;
  /**
   * A new member of reader group `group`, with test timings: commits every ~100 ms, short
   * drain, fast heartbeats. `settings` override them.
   */
  consumer(group: string, settings?: Partial<QueueConsumerSettings>): QueueConsumer;
  /**
   * How long a member may go silent before its partitions are given to others (Kafka session
   * timeout, Cassandra lease TTL): a batch running longer must keep its partition.
   */
  livenessMs: number;
}

export interface QueueBackendUnderTest {
  cluster(partitions: number): Promise<QueueClusterUnderTest>;
  close(): Promise<void>;
}

const QUEUE: QueueName = 'versions';
const DEADLINE_MS = 45_000;

interface Delivery {
  member: string;
  partition: number;
  offset: number;
  value: string;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * The behaviour every QueueProducer/QueueConsumer pair must show, run by each implementation's
 * integration spec against the real servers. Each test uses its own metastore cluster (fresh
 * topics) and closes the consumers it started. Group joins are kept few: they are the slow part.
 */
export function queueContractSuite(name: string, factory: () => Promise<QueueBackendUnderTest>): void {
  describe(`queue contract: ${name}`, () => {
    let backend: QueueBackendUnderTest;
    let consumers: QueueConsumer[] = [];

    beforeAll(async () => {
      backend = await factory();
    });
    afterEach(async () => {
      await Promise.all(consumers.map((c) => c.close()));
      consumers = [];
    });
    afterAll(() => backend?.close());

    const cluster = async (partitions: number) => {
      const c = await backend.cluster(partitions);
      return {
        ...c,
        consumer: (group: string, settings?: Partial<QueueConsumerSettings>) => {
          const consumer = c.consumer(group, settings);
          consumers.push(consumer);
          return consumer;
        },
      };
    };

    /** Subscribes and records every message handed to the handler, in order. */
    const recording = async (
      consumer: QueueConsumer,
      member: string,
      log: Delivery[],
      options: SubscribeOptions = {},
      inner?: BatchHandler,
    ): Promise<QueueSubscription> =>
      consumer.subscribe(
        QUEUE,
        async (batch) => {
          if (inner) return inner(batch);
          for (const m of batch.messages)
            log.push({ member, partition: m.partition, offset: m.offset, value: m.value.toString() });
        },
        options,
      );

    const valuesOf = (log: Delivery[], partition: number) =>
      log.filter((d) => d.partition === partition).map((d) => d.value);

    const committed = async (sub: QueueSubscription, partition: number) =>
      (await sub.committedOffsets()).get(partition);

    it('rejects a partition the queue does not have', async () => {
      const c = await cluster(3);
      expect(await c.producer.partitionCount(QUEUE)).toBe(3);
      await expect(c.producer.publish(QUEUE, 3, ['x'])).rejects.toThrow(/partitions 0\.\.2 \(got 3\)/);
      await expect(c.producer.publish(QUEUE, -1, ['x'])).rejects.toThrow(/partitions 0\.\.2/);
    });

    it('creates the topic from the consumer side and delivers each of 24 partitions in publish order', async () => {
      const c = await cluster(24);
      const log: Delivery[] = [];
      const sub = await recording(c.consumer('scheduler'), 'a', log, { maxBatchSize: 7, concurrency: 4 });
      await waitFor(
        'all 24 partitions assigned',
        async () => (sub.assignedPartitions().length === 24 ? true : undefined),
        DEADLINE_MS,
      );
      expect(await c.producer.partitionCount(QUEUE)).toBe(24);

      const expected = new Map<number, string[]>();
      await Promise.all(
        range(24).map(async (p) => {
          for (let round = 0; round < 3; round++) {
            const values = range(5).map((i) => `p${p}-${round * 5 + i}`);
            expected.set(p, [...(expected.get(p) ?? []), ...values]);
            await c.producer.publish(QUEUE, p, values);
          }
        }),
      );

      await waitFor('360 deliveries', async () => (log.length >= 360 ? true : undefined), DEADLINE_MS);
      for (const p of range(24)) {
        expect(valuesOf(log, p)).toEqual(expected.get(p));
        const offsets = log.filter((d) => d.partition === p).map((d) => d.offset);
        expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      }
      expect(log).toHaveLength(360);
    });

    it('redelivers the failed message and everything after it, nothing before', async () => {
      const c = await cluster(1);
      const values = range(10).map((i) => `m${i}`);
      await c.producer.publish(QUEUE, 0, values);
      const seen: string[] = [];
      let failed = false;
      const sub = await c.consumer('scheduler').subscribe(
        QUEUE,
        async (batch) => {
          for (const m of batch.messages) {
            const v = m.value.toString();
            seen.push(v);
            if (v === 'm4' && !failed) {
              failed = true;
              throw new Error('boom');
            }
            batch.done(m);
          }
        },
        { retryBackoff: { initialMs: 50, maxMs: 200 } },
      );

      await waitFor(
        'all 10 committed',
        async () => ((await committed(sub, 0)) === 10 ? true : undefined),
        DEADLINE_MS,
      );
      expect(seen).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9']);

      const metric = async (name: string, labels: string) =>
        (await c.metrics.render()).split('\n').find((l) => l.startsWith(name) && l.includes(labels));
      expect(await metric('ostore_queue_messages_processed_total', 'queue="versions"')).toMatch(/ 10$/);
      expect(await metric('ostore_queue_messages_failed_total', 'queue="versions"')).toMatch(/ 6$/);
      await waitFor(
        'the lag gauge to reach 0',
        async () =>
          (await metric('ostore_queue_consumer_lag_messages', 'partition="0"'))?.endsWith(' 0')
            ? true
            : undefined,
        DEADLINE_MS,
      );
    });

    it('commits only the contiguous prefix when messages finish out of order', async () => {
      const c = await cluster(1);
      await c.producer.publish(
        QUEUE,
        0,
        range(6).map((i) => `m${i}`),
      );
      const gates = [deferred(), deferred()];
      const sizes: number[] = [];
      const sub = await c.consumer('scheduler').subscribe(QUEUE, async (batch) => {
        sizes.push(batch.messages.length);
        const [m0, m1, m2, m3, m4] = batch.messages;
        [m1, m0, m4, m3].forEach((m) => batch.done(m));
        await abortable(gates[0].promise, batch.signal);
        batch.done(m2);
        await abortable(gates[1].promise, batch.signal);
      });

      const first = await waitFor('a first commit', () => committed(sub, 0), DEADLINE_MS);
      expect(sizes).toEqual([6]);
      expect(first).toBe(2); // m0, m1 done; m2 not: m3 and m4 must not count yet
      gates[0].resolve();
      await waitFor(
        'm2..m4 committed',
        async () => ((await committed(sub, 0)) === 5 ? true : undefined),
        DEADLINE_MS,
      );
      gates[1].resolve();
      await waitFor(
        'all committed',
        async () => ((await committed(sub, 0)) === 6 ? true : undefined),
        DEADLINE_MS,
      );
    });

    it('stops gracefully, handing back unfinished work; a new member resumes after the last commit', async () => {
      const c = await cluster(2);
      const values = range(30).map((i) => `m${i}`);
      await c.producer.publish(QUEUE, 1, values);

      const processedByA: string[] = [];
      const blocked = deferred();
      const a = c.consumer('scheduler', { drainTimeoutMs: 300 });
      const subA = await a.subscribe(
        QUEUE,
        async (batch) => {
          for (const m of batch.messages) {
            const v = m.value.toString();
            if (v === 'm12') {
              blocked.resolve();
              // finish nothing more: wait to be told to hand back, then give the rest back
              await abortable(new Promise<void>(() => undefined), batch.signal);
            }
            processedByA.push(v);
            batch.done(m);
          }
        },
        { maxBatchSize: 5 },
      );
      await blocked.promise;
      await subA.stop();
      expect(processedByA).toEqual(values.slice(0, 12));
      expect(await committed(subA, 1)).toBe(12);

      const log: Delivery[] = [];
      await recording(c.consumer('scheduler'), 'b', log);
      await waitFor(
        'm29 delivered to the new member',
        async () => (log.some((d) => d.value === 'm29') ? true : undefined),
        DEADLINE_MS,
      );
      expect(valuesOf(log, 1)).toEqual(values.slice(12));
    });

    it('gives each partition to one member of a group only', async () => {
      const c = await cluster(6);
      const log: Delivery[] = [];
      const active = new Map<number, number>();
      let overlap = false;
      const tracking =
        (member: string): BatchHandler =>
        async (batch) => {
          active.set(batch.partition, (active.get(batch.partition) ?? 0) + 1);
          if (active.get(batch.partition)! > 1) overlap = true;
          try {
            for (const m of batch.messages)
              log.push({ member, partition: m.partition, offset: m.offset, value: m.value.toString() });
            await new Promise((r) => setImmediate(r));
          } finally {
            active.set(batch.partition, active.get(batch.partition)! - 1);
          }
        };

      const subA = await recording(c.consumer('scheduler'), 'a', log, { concurrency: 6 }, tracking('a'));
      const subB = await recording(c.consumer('scheduler'), 'b', log, { concurrency: 6 }, tracking('b'));
      const split = await waitFor(
        'the six partitions split between the two members',
        async () => {
          const [pa, pb] = [subA.assignedPartitions(), subB.assignedPartitions()];
          const union = new Set([...pa, ...pb]);
          return pa.length > 0 && pb.length > 0 && union.size === 6 && pa.length + pb.length === 6
            ? { a: pa, b: pb }
            : undefined;
        },
        DEADLINE_MS,
      );

      await Promise.all(
        range(6).map((p) =>
          c.producer.publish(
            QUEUE,
            p,
            range(5).map((i) => `p${p}-${i}`),
          ),
        ),
      );
      await waitFor('30 deliveries', async () => (log.length >= 30 ? true : undefined), DEADLINE_MS);

      expect(overlap).toBe(false);
      for (const p of range(6)) {
        const readers = new Set(log.filter((d) => d.partition === p).map((d) => d.member));
        expect([...readers]).toEqual([split.a.includes(p) ? 'a' : 'b']);
        expect(valuesOf(log, p)).toEqual(range(5).map((i) => `p${p}-${i}`));
      }
    });

    it('keeps the partition through a batch longer than the session or lease', async () => {
      const c = await cluster(1);
      await c.producer.publish(QUEUE, 0, ['long']);
      let calls = 0;
      const sub = await c.consumer('scheduler').subscribe(QUEUE, async (batch) => {
        calls++;
        const until = Date.now() + c.livenessMs * 1.5;
        while (Date.now() < until) await abortable(delay(100), batch.signal);
      });
      await waitFor(
        'the long batch committed',
        async () => ((await committed(sub, 0)) === 1 ? true : undefined),
        DEADLINE_MS,
      );
      expect(calls).toBe(1);
      expect(sub.assignedPartitions()).toEqual([0]);
    });

    it('paces each partition to its rate limit', async () => {
      const c = await cluster(1);
      await c.producer.publish(
        QUEUE,
        0,
        range(30).map((i) => `m${i}`),
      );
      const times: number[] = [];
      await c.consumer('scheduler').subscribe(
        QUEUE,
        async (batch) => {
          for (const _ of batch.messages) times.push(Date.now());
        },
        { ratePerPartition: 20 },
      );
      await waitFor('30 deliveries', async () => (times.length >= 30 ? true : undefined), DEADLINE_MS);
      // a burst of 20, then 10 more at 20 per second: at least half a second in all
      expect(times[29] - times[0]).toBeGreaterThanOrEqual(450);
      expect(times[19] - times[0]).toBeLessThan(times[29] - times[0]);
    });

    it('pauses a partition until it is resumed', async () => {
      const c = await cluster(2);
      const log: Delivery[] = [];
      const sub = await recording(c.consumer('scheduler'), 'a', log, { concurrency: 2 });
      await waitFor(
        'both partitions assigned',
        async () => (sub.assignedPartitions().length === 2 ? true : undefined),
        DEADLINE_MS,
      );
      sub.pause([0]);

      await c.producer.publish(QUEUE, 0, ['a0']);
      await c.producer.publish(QUEUE, 1, ['b0']);
      await waitFor('b0', async () => (log.some((d) => d.value === 'b0') ? true : undefined), DEADLINE_MS);
      // one more full round trip on the other partition after a0 was written
      await c.producer.publish(QUEUE, 1, ['b1']);
      await waitFor('b1', async () => (log.some((d) => d.value === 'b1') ? true : undefined), DEADLINE_MS);
      expect(valuesOf(log, 0)).toEqual([]);

      sub.resume([0]);
      await waitFor(
        'a0 after resume',
        async () => (log.some((d) => d.value === 'a0') ? true : undefined),
        DEADLINE_MS,
      );
      expect(valuesOf(log, 0)).toEqual(['a0']);
    });
  });
}

/** `promise`, or a rejection with the signal's reason once it aborts: how handlers hand work back. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
