import { Controller, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { of } from 'rxjs';
import { QueueName } from '@ostore/queue/contracts';
import { BatchHandler, QueueBatch, QueueConsumer, QueueSubscription, SubscribeOptions } from '../queue';
import { QueueHandler } from './queue-handler.decorator';
import { QueueTransport, QueueTransportOptions } from './queue.transport';

/** Records the subscriptions the transport makes; no queue behind it. */
class RecordingConsumer extends QueueConsumer {
  readonly subscribed = new Map<QueueName, { handler: BatchHandler; options?: SubscribeOptions }>();
  readonly stopped: QueueName[] = [];

  async subscribe(
    queue: QueueName,
    handler: BatchHandler,
    options?: SubscribeOptions,
  ): Promise<QueueSubscription> {
    this.subscribed.set(queue, { handler, options });
    return {
      queue,
      assignedPartitions: () => [],
      pause: () => undefined,
      resume: () => undefined,
      committedOffsets: async () => new Map(),
      stop: async () => void this.stopped.push(queue),
    };
  }

  async close(): Promise<void> {}
}

const batchOf = (queue: QueueName): QueueBatch => ({
  queue,
  partition: 2,
  messages: [{ queue, partition: 2, offset: 7, value: Buffer.from('x') }],
  signal: new AbortController().signal,
  done: () => undefined,
});

describe(QueueTransport.name, () => {
  const boot = async (controller: Type, options?: QueueTransportOptions) => {
    @Module({ controllers: [controller] })
    class TestModule {}
    const consumer = new RecordingConsumer();
    const sut = new QueueTransport(consumer, options);
    const app = await NestFactory.createMicroservice(TestModule, {
      strategy: sut,
      logger: false,
      abortOnError: false,
    });
    return { consumer, sut, app };
  };

  @Controller()
  class Candidates {
    static readonly seen: { queue: QueueName; partition: number }[] = [];

    @QueueHandler('versions', { maxBatchSize: 10, concurrency: 2 })
    async versions(@Payload() batch: QueueBatch): Promise<void> {
      Candidates.seen.push({ queue: batch.queue, partition: batch.partition });
      if (batch.messages[0].value.toString() === 'boom') throw new RangeError('boom');
    }

    @QueueHandler('uploads')
    uploads() {
      return of('ignored');
    }
  }

  it('subscribes each @QueueHandler queue, options layered: defaults < decorator < per queue', async () => {
    const { consumer, sut, app } = await boot(Candidates, {
      defaults: { maxBatchSize: 100, ratePerPartition: 5 },
      queues: { versions: { concurrency: 4 } },
    });
    await app.listen();

    expect([...consumer.subscribed.keys()].sort()).toEqual(['uploads', 'versions']);
    expect(consumer.subscribed.get('versions')!.options).toEqual({
      maxBatchSize: 10,
      ratePerPartition: 5,
      concurrency: 4,
    });
    expect(consumer.subscribed.get('uploads')!.options).toEqual({ maxBatchSize: 100, ratePerPartition: 5 });
    expect(sut.subscription('versions')?.queue).toBe('versions');

    await app.close();
    expect(consumer.stopped.sort()).toEqual(['uploads', 'versions']);
  });

  it('hands the batch to the method; its error reaches the consumer as thrown; an Observable counts once complete', async () => {
    const { consumer, app } = await boot(Candidates);
    await app.listen();
    const versions = consumer.subscribed.get('versions')!.handler;

    await versions(batchOf('versions'));
    expect(Candidates.seen).toContainEqual({ queue: 'versions', partition: 2 });
    const boom = {
      ...batchOf('versions'),
      messages: [{ queue: 'versions' as const, partition: 2, offset: 8, value: Buffer.from('boom') }],
    };
    await expect(versions(boom)).rejects.toThrow(RangeError);
    await expect(consumer.subscribed.get('uploads')!.handler(batchOf('uploads'))).resolves.toBeUndefined();
    await app.close();
  });

  it('refuses request-response patterns and a second handler of one queue', async () => {
    @Controller()
    class Asking {
      @MessagePattern('versions')
      ask() {
        return 'answer';
      }
    }
    @Controller()
    class Twice {
      @QueueHandler('uploads')
      one() {}
      @QueueHandler('uploads')
      two() {}
    }

    const asking = await boot(Asking);
    await expect(asking.app.listen()).rejects.toThrow(/not @MessagePattern/);
    const twice = await boot(Twice);
    await expect(twice.app.listen()).rejects.toThrow(/more than one handler/);
    expect(twice.consumer.subscribed.size).toBe(0);
  });
});
