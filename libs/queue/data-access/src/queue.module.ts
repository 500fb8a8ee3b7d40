import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Module } from '@nestjs/common';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { CassandraQueueConsumer } from './cassandra/cassandra-queue.consumer';
import { CassandraQueueConsumerSettings, CassandraQueueSettings } from './cassandra/cassandra-queue.options';
import { CassandraQueueProducer } from './cassandra/cassandra-queue.producer';
import { CassandraQueueRepository } from './cassandra/cassandra-queue.repository';
import { KafkaClient } from './kafka.client';
import { KafkaModule } from './kafka.module';
import { KafkaOptions } from './kafka.options';
import { KafkaQueueConsumer, KafkaQueueConsumerSettings } from './kafka/kafka-queue.consumer';
import { KafkaQueueProducer } from './kafka/kafka-queue.producer';
import { QueueConsumer, QueueConsumerSettings, QueueLog, QueueProducer, silentLog } from './queue';
import { QueueMetrics } from './queue.metrics';

/** Values of the QUEUE_BACKEND switch (seed 000: a feature toggle moved a cluster's queue to Kafka). */
export const QUEUE_BACKENDS = ['kafka', 'cassandra'] as const;
export type QueueBackend = (typeof QUEUE_BACKENDS)[number];

export type QueueModuleOptions =
  | {
      backend: 'kafka';
      /** Omit when the app imports KafkaModule itself (its KafkaClient is then used). */
      kafka?: KafkaOptions;
      consumer: KafkaQueueConsumerSettings;
    }
  | {
      /** Uses the app's CassandraClient (CassandraModule) and the tables of migration 003-queue. */
      backend: 'cassandra';
      cassandra: CassandraQueueSettings;
      consumer: CassandraQueueConsumerSettings;
    };

const QUEUE_LOG = Symbol('QUEUE_LOG');

/** The app's Clock (ClockModule) for the consumer's rate limiters, unless the settings name one. */
function withClock<S extends QueueConsumerSettings>(settings: S, clock: Clock | undefined): S {
  return settings.clock || !clock ? settings : { ...settings, clock };
}

@Injectable()
class QueueLifecycle implements BeforeApplicationShutdown {
  constructor(
    @Inject(QueueConsumer) private readonly consumer: QueueConsumer,
    @Inject(QueueProducer) private readonly producer: QueueProducer,
  ) {}

  /** Before the Kafka and Cassandra clients close: consumers still need them to commit while draining. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer.close();
    await this.producer.close();
  }
}

/**
 * QueueProducer and QueueConsumer for the configured backend (QUEUE_BACKEND=kafka|cassandra),
 * with their metrics in the app's MetricsRegistry and a graceful stop before shutdown.
 */
@Global()
@Module({})
export class QueueModule {
  static forRoot(options: QueueModuleOptions): DynamicModule {
    const common = [
      {
        provide: QueueMetrics,
        useFactory: (registry?: MetricsRegistry) => new QueueMetrics(registry),
        inject: [{ token: MetricsRegistry, optional: true }],
      },
      {
        provide: QUEUE_LOG,
        useFactory: (logger?: JsonLogger): QueueLog => logger?.forContext('Queue') ?? silentLog,
        inject: [{ token: JsonLogger, optional: true }],
      },
      QueueLifecycle,
    ];
    const exports = [QueueProducer, QueueConsumer, QueueMetrics];

    if (options.backend === 'kafka') {
      return {
        module: QueueModule,
        imports: options.kafka ? [KafkaModule.forRoot(options.kafka)] : [],
        providers: [
          ...common,
          {
            provide: QueueProducer,
            useFactory: (c: KafkaClient) => new KafkaQueueProducer(c),
            inject: [KafkaClient],
          },
          {
            provide: QueueConsumer,
            useFactory: (c: KafkaClient, m: QueueMetrics, log: QueueLog, clock?: Clock) =>
              new KafkaQueueConsumer(c, withClock(options.consumer, clock), m, log),
            inject: [KafkaClient, QueueMetrics, QUEUE_LOG, { token: Clock, optional: true }],
          },
        ],
        exports,
      };
    }
    return {
      module: QueueModule,
      providers: [
        ...common,
        {
          provide: CassandraQueueRepository,
          useFactory: (db: CassandraClient) => new CassandraQueueRepository(db),
          inject: [CassandraClient],
        },
        {
          provide: QueueProducer,
          useFactory: (r: CassandraQueueRepository) => new CassandraQueueProducer(r, options.cassandra),
          inject: [CassandraQueueRepository],
        },
        {
          provide: QueueConsumer,
          useFactory: (r: CassandraQueueRepository, m: QueueMetrics, log: QueueLog, clock?: Clock) =>
            new CassandraQueueConsumer(r, options.cassandra, withClock(options.consumer, clock), m, log),
          inject: [CassandraQueueRepository, QueueMetrics, QUEUE_LOG, { token: Clock, optional: true }],
        },
      ],
      exports,
    };
  }
}
