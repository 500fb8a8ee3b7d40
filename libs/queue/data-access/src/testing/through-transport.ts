import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { QueueName } from '@ostore/queue/contracts';
import { BatchHandler, QueueBatch, QueueConsumer, QueueSubscription, SubscribeOptions } from '../queue';
import { QueueHandler } from '../transport/queue-handler.decorator';
import { QueueTransport } from '../transport/queue.transport';
import { QueueBackendUnderTest } from './queue-contract.suite';

/**
 * `consumer` seen through QueueTransport: every `subscribe` starts a Nest microservice whose one
 * controller method, a `@QueueHandler(queue, options)`, calls the handler; its subscription's
 * `stop()` closes that microservice. The contract suite run over it shows that the transport
 * keeps the consumer's semantics.
 */
export function throughTransport(consumer: QueueConsumer): QueueConsumer {
  const stops: (() => Promise<void>)[] = [];
  return new (class extends QueueConsumer {
    async subscribe(
      queue: QueueName,
      handler: BatchHandler,
      options: SubscribeOptions = {},
    ): Promise<QueueSubscription> {
      @Controller()
      class OneQueue {
        @QueueHandler(queue, options)
        handle(@Payload() batch: QueueBatch): Promise<void> {
          return handler(batch);
        }
      }
      @Module({ controllers: [OneQueue] })
      class OneQueueModule {}

      const transport = new QueueTransport(consumer);
      const app = await NestFactory.createMicroservice(OneQueueModule, {
        strategy: transport,
        logger: false,
        abortOnError: false,
      });
      await app.listen();
      const sub = transport.subscription(queue);
      if (!sub) throw new Error(`the transport did not subscribe ${queue}`);
      let closed: Promise<void> | undefined;
      const stop = () => (closed ??= app.close());
      stops.push(stop);
      return {
        queue,
        assignedPartitions: () => sub.assignedPartitions(),
        pause: (partitions) => sub.pause(partitions),
        resume: (partitions) => sub.resume(partitions),
        committedOffsets: () => sub.committedOffsets(),
        stop,
      };
    }

    async close(): Promise<void> {
      await Promise.all(stops.splice(0).map((stop) => stop()));
      await consumer.close();
    }
  })();
}

/** The same backend with each of its consumers seen through QueueTransport (throughTransport). */
export function backendThroughTransport(backend: QueueBackendUnderTest): QueueBackendUnderTest {
  return {
    cluster: async (partitions) => {
      const cluster = await backend.cluster(partitions);
      return {
        ...cluster,
        consumer: (group, settings) => throughTransport(cluster.consumer(group, settings)),
      };
    },
    close: () => backend.close(),
  };
}
