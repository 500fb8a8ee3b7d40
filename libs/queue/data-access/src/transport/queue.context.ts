import { BaseRpcContext } from '@nestjs/microservices';
import { QueueName } from '@ostore/queue/contracts';
import { QueueBatch } from '../queue';

/** The `@Ctx()` of a QueueTransport handler: the batch it was given, with its queue and partition. */
export class QueueContext extends BaseRpcContext<[QueueBatch]> {
  constructor(batch: QueueBatch) {
    super([batch]);
  }

  getBatch(): QueueBatch {
    return this.args[0];
  }

  getQueue(): QueueName {
    return this.args[0].queue;
  }

  getPartition(): number {
    return this.args[0].partition;
  }
}
