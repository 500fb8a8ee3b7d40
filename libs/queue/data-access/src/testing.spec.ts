import { MetricsRegistry } from '@ostore/shared/observability';
import { inMemoryQueue, queueContractSuite } from './testing';

// The contract suite against the in-memory queue: checks the test double apps use, and the
// suite itself, in every unit run.
queueContractSuite('in memory', async () => ({
  async cluster(partitions) {
    const metrics = new MetricsRegistry('queue-contract', false);
    const queue = inMemoryQueue({ partitions, metrics, consumer: { leaseTtlSeconds: 0.5 } });
    return { producer: queue.producer, consumer: queue.consumer, metrics, livenessMs: 500 };
  },
  close: async () => undefined,
}));
