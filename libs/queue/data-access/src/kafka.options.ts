export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  /** Metastore cluster name: topics are `s3-<cluster>-<queue>`. */
  cluster: string;
  /** Partitions of topics created on demand (the seed's default 3, up to 24 on busy clusters). */
  partitions: number;
  replicationFactor: number;
}
