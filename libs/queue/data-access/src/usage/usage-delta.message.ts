/** One encoded delta and its Kafka key (the bucket id: one bucket's deltas stay in one partition, in order). */
export interface KeyedMessage {
  readonly key: string;
  readonly value: string;
}

/** The Kafka key of a bucket's usage deltas (what `usagePartitionOf` places, so both read it here). */
export function usageKeyOf(bucketId: string): string {
  return bucketId;
}
