import { applyDecorators, Catch, RpcExceptionFilter, UseFilters } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { QueueName } from '@ostore/queue/contracts';
import { SubscribeOptions } from '../queue';

/** Transport id of QueueTransport: `@QueueHandler` methods bind to it only, in a hybrid app too. */
export const QUEUE_TRANSPORT = Symbol('ostore-queue');

/** What `@QueueHandler` records on the method (Nest's pattern extras), read by QueueTransport. */
export interface QueueHandlerExtras {
  queue: QueueName;
  subscribe: SubscribeOptions;
}

/**
 * Lets a handler's error reach QueueTransport as it was thrown. Nest's default RPC filter would
 * log it and replace it with `{ status: 'error' }`; the queue needs the error itself (the run's
 * failure, logged once by the consumer) and no second log line for a hand-back.
 */
@Catch()
class RethrowToTransport implements RpcExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}

/**
 * Makes a controller method the handler of one queue on QueueTransport: an `@EventPattern(queue)`
 * bound to that transport, with the queue's subscribe options (under those the transport is
 * given for the queue, over its defaults). The method receives the QueueBatch (`@Payload()`; the
 * QueueContext is `@Ctx()`) and follows BatchHandler's contract: see QueueTransport.
 *
 * @example
 *   @Controller()
 *   export class FolderCandidatesController {
 *     @QueueHandler('version-folders', { maxBatchSize: 50 })
 *     handle(@Payload() batch: QueueBatch): Promise<void> { ... }
 *   }
 */
export function QueueHandler(queue: QueueName, subscribe: SubscribeOptions = {}): MethodDecorator {
  const extras: QueueHandlerExtras = { queue, subscribe };
  return applyDecorators(EventPattern(queue, QUEUE_TRANSPORT, extras), UseFilters(new RethrowToTransport()));
}
