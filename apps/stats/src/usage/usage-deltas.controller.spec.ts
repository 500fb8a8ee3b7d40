import { usageDeltaMessage } from '@ostore/queue/contracts';
import { QueueBatch, QueueMessage } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { StatsMetrics, UsageRecorder } from '@ostore/stats/data-access';
import { usageDelta } from '@ostore/stats/data-access/testing';
import { UsageDeltasController } from './usage-deltas.controller';

describe(UsageDeltasController.name, () => {
  const message = (offset: number, value: string): QueueMessage => ({
    queue: 'usage',
    partition: 0,
    offset,
    value: Buffer.from(value),
  });
  const batchOf = (messages: QueueMessage[]) => {
    const done: number[] = [];
    const batch: QueueBatch = {
      queue: 'usage',
      partition: 0,
      messages,
      signal: new AbortController().signal,
      done: (m) => done.push(m.offset),
    };
    return { batch, done };
  };
  const setup = (record: UsageRecorder['record']) => {
    const metrics = new StatsMetrics(new MetricsRegistry('test', false));
    const sut = new UsageDeltasController(
      { record } as UsageRecorder,
      metrics,
      new JsonLogger('test', 'silent'),
    );
    return { sut, metrics };
  };

  it('records the decoded deltas of a batch, skips what the contract refuses, then marks every message done', async () => {
    const d1 = usageDelta();
    const d2 = usageDelta({ kind: 'remove', bytes: -5 });
    const recorded: unknown[] = [];
    const positions: unknown[] = [];
    const { sut, metrics } = setup(async (deltas, position) => {
      recorded.push(...deltas);
      positions.push(position);
      return { stored: 2, duplicates: 0, expired: 0, windows: 1 };
    });
    const { batch, done } = batchOf([
      message(1, usageDeltaMessage(d1)),
      message(2, '{"v":2}'),
      message(3, usageDeltaMessage(d2)),
    ]);
    await sut.usage(batch);
    expect(recorded).toEqual([d1, d2]);
    expect(positions).toEqual([{ partition: 0, firstOffset: 1, nextOffset: 4 }]);
    expect(done).toEqual([1, 2, 3]);
    expect((await metrics.invalid.get()).values[0].value).toBe(1);
  });

  it('marks nothing done when recording fails: the whole batch comes again', async () => {
    const { sut } = setup(async () => {
      throw new Error('cassandra timeout');
    });
    const { batch, done } = batchOf([message(1, usageDeltaMessage(usageDelta()))]);
    await expect(sut.usage(batch)).rejects.toThrow('cassandra timeout');
    expect(done).toEqual([]);
  });
});
