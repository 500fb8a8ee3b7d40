import { MetricsRegistry } from '@ostore/shared/observability';
import { freshCluster, stackEnv } from '@ostore/testing';
import { KafkaClient, KafkaQueueConsumer, KafkaQueueProducer, QueueMetrics } from '../src';
import { queueContractSuite } from '../src/testing';

queueContractSuite('kafka', async () => {
  const clients: KafkaClient[] = [];
  return {
    async cluster(partitions) {
      const client = new KafkaClient({
        brokers: stackEnv().kafkaBrokers,
        clientId: 'queue-contract',
        cluster: freshCluster('queue'),
        partitions,
        replicationFactor: 1,
      });
      clients.push(client);
      const metrics = new MetricsRegistry('queue-contract', false);
      return {
        producer: new KafkaQueueProducer(client),
        metrics,
        livenessMs: 6000,
        consumer: (group, settings) =>
          new KafkaQueueConsumer(
            client,
            {
              group,
              // the broker's minimum session; short rebalances and fetch waits keep group joins quick
              sessionTimeoutMs: 6000,
              rebalanceTimeoutMs: 6000,
              heartbeatIntervalMs: 300,
              maxWaitTimeMs: 100,
              commitIntervalMs: 100,
              drainTimeoutMs: 1000,
              ...settings,
            },
            new QueueMetrics(metrics),
          ),
      };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
});
