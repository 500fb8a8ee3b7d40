/** One encoded delta and its Kafka key (the bucket id: one bucket's deltas stay in one partition, in order). */
export interface KeyedMessage {
  readonly key: string;
  readonly value: string;
}
