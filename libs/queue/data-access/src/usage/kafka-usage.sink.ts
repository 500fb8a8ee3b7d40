import { KafkaClient } from '../kafka.client';
import { partitionOfKey } from '../kafka/key-partitioner';
import { usageKeyOf } from './usage-delta.message';
import { KeyedMessage, UsageDeltaSink } from './usage-delta.publisher';

/**
 * The partition of `s3-<cluster>-usage` (of `partitionCount`) that carries the bucket's deltas:
 * the publisher's key (`usageKeyOf`), placed by the producers' own partitioner.
 */
export function usagePartitionOf(bucketId: string, partitionCount: number): number {
  return partitionOfKey(usageKeyOf(bucketId), partitionCount);
}

/**
 * The `usage` queue on Kafka: topic `s3-<cluster>-usage` (created on demand), message key = the
 * bucket id, so Kafka's default partitioner keeps one bucket's deltas in one partition, in order.
 * acks=all: a resolved send survives the loss of the leader.
 */
export class KafkaUsageSink implements UsageDeltaSink {
  constructor(private readonly client: KafkaClient) {}

  async send(messages: readonly KeyedMessage[]): Promise<void> {
    const topic = await this.client.ensureTopic('usage');
    const producer = await this.client.producer();
    await producer.send({ topic, acks: -1, messages: messages.map(({ key, value }) => ({ key, value })) });
  }
}
