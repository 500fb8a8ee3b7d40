import { QueueName } from '@ostore/queue/contracts';
import { KafkaClient } from '../kafka.client';
import { assertPartition, Lanes } from '../lanes';
import { QueueProducer } from '../queue';

/**
 * QueueProducer over Kafka: each queue is the topic `s3-<cluster>-<queue>`, created on demand
 * with the configured partition count; messages go to the partition the caller names (the
 * scanner's host partition), never to a key-hashed one.
 *
 * Ordering: the shared producer is not idempotent and may have several requests in flight, so
 * a retried request could overtake a later one. Calls to one partition are therefore serialized
 * here (at most one send in flight per partition), which keeps per-partition order even across
 * retries. acks=all: a resolved publish survives the loss of the leader.
 */
export class KafkaQueueProducer extends QueueProducer {
  private readonly lanes = new Lanes();
  private readonly counts = new Map<QueueName, Promise<number>>();

  constructor(private readonly client: KafkaClient) {
    super();
  }

  async publish(queue: QueueName, partition: number, messages: readonly (Buffer | string)[]): Promise<void> {
    const count = await this.partitionCount(queue);
    assertPartition(queue, partition, count);
    if (messages.length === 0) return;
    const topic = this.client.topic(queue);
    await this.lanes.run(`${topic}/${partition}`, async () => {
      const producer = await this.client.producer();
      await producer.send({ topic, acks: -1, messages: messages.map((value) => ({ value, partition })) });
    });
  }

  partitionCount(queue: QueueName): Promise<number> {
    let count = this.counts.get(queue);
    if (!count) {
      count = this.client.ensureTopic(queue).then((topic) => this.client.partitionCount(topic));
      this.counts.set(queue, count);
      count.catch(() => this.counts.delete(queue));
    }
    return count;
  }

  /** The producer connection belongs to the KafkaClient, which closes it. */
  async close(): Promise<void> {
    this.counts.clear();
  }
}
