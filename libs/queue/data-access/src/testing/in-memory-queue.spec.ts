import { MetricsRegistry } from '@ostore/shared/observability';
import { backendThroughTransport, inMemoryQueue, QueueBackendUnderTest, queueContractSuite } from '.';

// The contract suite against the in-memory queue: checks the test double apps use, and the
// suite itself, in every unit run; then once more through the Nest transport.
const inMemory = async (): Promise<QueueBackendUnderTest> => ({
  async cluster(partitions) {
    const metrics = new MetricsRegistry('queue-contract', false);
    const queue = inMemoryQueue({ partitions, metrics, consumer: { leaseTtlSeconds: 0.5 } });
    return { producer: queue.producer, consumer: queue.consumer, metrics, livenessMs: 500 };
  },
  close: async () => undefined,
});

queueContractSuite('in memory', inMemory);
queueContractSuite('in memory, through QueueTransport', async () =>
  backendThroughTransport(await inMemory()),
);
