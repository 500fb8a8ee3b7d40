import { queueOptions } from './app.module';
import { loadSchedulerConfig } from './config/scheduler.config';

describe(queueOptions.name, () => {
  it('consumes as group `scheduler` on the configured backend, heartbeats within a third of the session', () => {
    expect(queueOptions(loadSchedulerConfig({ QUEUE_SESSION_TIMEOUT_MS: '6000' }))).toEqual({
      backend: 'kafka',
      consumer: { group: 'scheduler', drainTimeoutMs: 10000, sessionTimeoutMs: 6000, rebalanceTimeoutMs: 6000, heartbeatIntervalMs: 2000 },
    });
    expect(queueOptions(loadSchedulerConfig({ QUEUE_BACKEND: 'cassandra', OSTORE_CLUSTER: 'c1', KAFKA_TOPIC_PARTITIONS: '24' }))).toEqual({
      backend: 'cassandra',
      cassandra: { cluster: 'c1', partitions: 24 },
      consumer: { group: 'scheduler', drainTimeoutMs: 10000, leaseTtlSeconds: 30, heartbeatMs: 3000 },
    });
  });
});
