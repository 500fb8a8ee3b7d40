import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CassandraClient } from '@ostore/shared/cassandra';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { CassandraQueueConsumer } from './cassandra/cassandra-queue.consumer';
import { CassandraQueueProducer } from './cassandra/cassandra-queue.producer';
import { KafkaQueueConsumer } from './kafka/kafka-queue.consumer';
import { KafkaQueueProducer } from './kafka/kafka-queue.producer';
import { QueueConsumer, QueueProducer } from './queue';
import { QueueModule } from './queue.module';

describe(QueueModule.name, () => {
  const observability = (metrics: MetricsRegistry) =>
    ObservabilityModule.forRoot({ app: 'test', logger: new JsonLogger('test', 'silent'), metrics });

  it('provides the Cassandra-table queue for backend cassandra, on the app session', async () => {
    const metrics = new MetricsRegistry('test', false);
    @Global()
    @Module({ providers: [{ provide: CassandraClient, useValue: {} }], exports: [CassandraClient] })
    class FakeCassandra {}

    @Module({
      imports: [
        observability(metrics),
        FakeCassandra,
        QueueModule.forRoot({
          backend: 'cassandra',
          cassandra: { cluster: 'dev', partitions: 3 },
          consumer: { group: 'scheduler' },
        }),
      ],
    })
    class App {}

    const sut = await NestFactory.createApplicationContext(App, { logger: false });
    try {
      expect(sut.get(QueueProducer)).toBeInstanceOf(CassandraQueueProducer);
      expect(sut.get(QueueConsumer)).toBeInstanceOf(CassandraQueueConsumer);
      expect(await metrics.render()).toContain('ostore_queue_consumer_lag_messages');
    } finally {
      await sut.close();
    }
  });

  it('provides the Kafka queue for backend kafka, connecting nothing until used', async () => {
    const metrics = new MetricsRegistry('test', false);
    @Module({
      imports: [
        observability(metrics),
        QueueModule.forRoot({
          backend: 'kafka',
          kafka: {
            brokers: ['127.0.0.1:1'],
            clientId: 'test',
            cluster: 'dev',
            partitions: 3,
            replicationFactor: 1,
          },
          consumer: { group: 'scheduler' },
        }),
      ],
    })
    class App {}

    const sut = await NestFactory.createApplicationContext(App, { logger: false });
    try {
      expect(sut.get(QueueProducer)).toBeInstanceOf(KafkaQueueProducer);
      expect(sut.get(QueueConsumer)).toBeInstanceOf(KafkaQueueConsumer);
      expect(await metrics.render()).toContain('ostore_queue_messages_processed_total');
    } finally {
      await sut.close();
    }
  });
});
