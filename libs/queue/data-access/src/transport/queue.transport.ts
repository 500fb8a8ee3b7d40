import { FactoryProvider } from '@nestjs/common';
import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import { QueueName, QUEUES } from '@ostore/queue/contracts';
import { JsonLogger } from '@ostore/shared/observability';
import {
  QueueBatch,
  QueueConsumer,
  QueueLog,
  QueueSubscription,
  silentLog,
  SubscribeOptions,
} from '../queue';
import { QUEUE_TRANSPORT, QueueHandlerExtras } from './queue-handler.decorator';
import { QueueContext } from './queue.context';

/** Subscribe options the app gives the transport (typically from its configuration). */
export interface QueueTransportOptions {
  /** Options of every queue, under those of its `@QueueHandler` and of `queues`. */
  defaults?: SubscribeOptions;
  /** Options of one queue, over those of its `@QueueHandler`. */
  queues?: Partial<Record<QueueName, SubscribeOptions>>;
}

/**
 * The queues as a Nest microservice transport: every `@QueueHandler(queue)` (an `@EventPattern`
 * on this transport) of the app's controllers becomes one subscription of the app's
 * QueueConsumer, so a consumer is an ordinary Nest handler while the queue library keeps what it
 * owns: explicit partitions, one reader per partition in the group, commits only up to the
 * highest contiguous fully processed offset, per-partition rate limits, failure backoff, and a
 * graceful stop. Both backends (Kafka and the Cassandra table) alike; Nest's own Kafka transport
 * keeps none of that and is not used.
 *
 * The handler contract (BatchHandler's, unchanged):
 * - the method receives one QueueBatch: messages of ONE partition in partition order, at most
 *   `maxBatchSize`. Handling them concurrently inside the batch is the handler's choice (the
 *   scheduler runs distinct object keys in parallel and one key in offset order);
 * - it calls `batch.done(message)` for each message fully processed, in any order; only the
 *   contiguous done prefix is committed, so a crash never skips a message;
 * - resolving means every message of the batch is done; throwing means only those passed to
 *   `done()` are: the first undone message and everything after it come again after the
 *   partition's backoff (the error reaches the transport as thrown: `@QueueHandler` installs a
 *   filter that rethrows it instead of Nest's RPC error reply);
 * - when `batch.signal` aborts (stop past its drain time, partition moved) it finishes the
 *   current message and throws; it never resolves then, which would claim the rest as done;
 * - it is idempotent: whatever was not committed may be delivered again.
 * An Observable result counts as done when it completes. There is one handler per queue, and
 * no request-response (`@MessagePattern`): a queue has no one to answer.
 *
 * Wiring (the scheduler does it so): QueueModule.forRoot for the consumer, `QueueTransport.provider()`
 * among the app's providers, the handler's controller among its `controllers`, and
 * `runApp({ ..., transports: (app) => [app.get(QueueTransport)] })` in main.ts. A further queue
 * is one more `@QueueHandler(queue)` method, in a new controller or an existing one.
 *
 * Lifecycle: `listen()` (app.startAllMicroservices) subscribes every queue; `close()` stops the
 * subscriptions gracefully, once. In a hybrid app the QueueModule already stops its consumer
 * (hence these subscriptions) before the Kafka and Cassandra clients close; `close()` then finds
 * them stopped.
 */
export class QueueTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions = new Map<QueueName, QueueSubscription>();
  private closed?: Promise<void>;

  constructor(
    private readonly consumer: QueueConsumer,
    private readonly options: QueueTransportOptions = {},
    private readonly log: QueueLog = silentLog,
  ) {
    super();
    this.transportId = QUEUE_TRANSPORT;
  }

  /**
   * A provider of the transport over the app's QueueConsumer (QueueModule) and JsonLogger; the
   * app then hands `app.get(QueueTransport)` to runApp's `transports`.
   */
  static provider(options: QueueTransportOptions = {}): FactoryProvider<QueueTransport> {
    return {
      provide: QueueTransport,
      useFactory: (consumer: QueueConsumer, logger?: JsonLogger) =>
        new QueueTransport(consumer, options, logger?.forContext(QueueTransport.name)),
      inject: [QueueConsumer, { token: JsonLogger, optional: true }],
    };
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      const routes = [...this.getHandlers()].map(([pattern, handler]) => this.route(pattern, handler));
      const started = await Promise.allSettled(
        routes.map(async ({ queue, handler, options }) => {
          const sub = await this.consumer.subscribe(queue, (batch) => this.dispatch(handler, batch), options);
          this.subscriptions.set(queue, sub);
        }),
      );
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      this.log.info('consuming queues', {
        queues: routes.map(({ queue, options }) => ({ queue, ...options })),
      });
    } catch (e) {
      await this.close();
      return callback(e);
    }
    callback();
  }

  /** The running subscription of `queue` (pause, resume, committed offsets), once listening. */
  subscription(queue: QueueName): QueueSubscription | undefined {
    return this.subscriptions.get(queue);
  }

  close(): Promise<void> {
    this.closed ??= Promise.all([...this.subscriptions.values()].map((s) => s.stop())).then(() => undefined);
    return this.closed;
  }

  /** The QueueConsumer under the transport. */
  unwrap<T>(): T {
    return this.consumer as T;
  }

  on(): never {
    throw new Error('QueueTransport emits no events');
  }

  private route(
    pattern: string,
    handler: MessageHandler,
  ): { queue: QueueName; handler: MessageHandler; options: SubscribeOptions } {
    const extras = handler.extras as Partial<QueueHandlerExtras> | undefined;
    const queue = (extras?.queue ?? pattern) as QueueName;
    if (!QUEUES.includes(queue)) throw new Error(`no queue "${pattern}" (queues: ${QUEUES.join(', ')})`);
    if (!handler.isEventHandler)
      throw new Error(`queue ${queue}: use @QueueHandler (an event pattern), not @MessagePattern`);
    if (handler.next) throw new Error(`queue ${queue} has more than one handler; a queue has one`);
    const options = { ...this.options.defaults, ...extras?.subscribe, ...this.options.queues?.[queue] };
    return { queue, handler, options };
  }

  private async dispatch(handler: MessageHandler, batch: QueueBatch): Promise<void> {
    const result = await handler(batch, new QueueContext(batch));
    if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
  }
}
