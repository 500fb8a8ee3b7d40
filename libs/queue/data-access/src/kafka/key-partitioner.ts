import { PartitionMetadata, Partitioners } from 'kafkajs';

/**
 * The partitioner of every producer the KafkaClient creates: kafkajs' DefaultPartitioner (the
 * Java client's: an explicit partition wins, else `murmur2(key) & 0x7fffffff % partitions` over
 * all partitions, available or not). Named here, and not left to the kafkajs default, so that
 * `partitionOfKey` and the producers cannot drift apart across a kafkajs upgrade.
 */
export const producerPartitioner = Partitioners.DefaultPartitioner;

const keyed = producerPartitioner();
const layouts = new Map<number, PartitionMetadata[]>();

/**
 * The partition a message with this key goes to in a topic of `partitionCount` partitions, as
 * computed by the producers' own partitioner (the same function, not a copy of it).
 */
export function partitionOfKey(key: string, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1)
    throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  let partitionMetadata = layouts.get(partitionCount);
  if (!partitionMetadata) {
    partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
      partitionErrorCode: 0,
      partitionId,
      leader: 0,
      replicas: [0],
      isr: [0],
    }));
    layouts.set(partitionCount, partitionMetadata);
  }
  return keyed({ topic: '', partitionMetadata, message: { key, value: null } });
}
