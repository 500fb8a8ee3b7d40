/** The queues of one metastore cluster (seed 000); each is one Kafka topic. */
export const QUEUES = [
  'versions',
  'uploads',
  'version-folders',
  'object-folders',
  'upload-folders',
  'usage',
] as const;
export type QueueName = (typeof QUEUES)[number];

const CLUSTER_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Topic of one queue of one metastore cluster: `s3-<cluster>-<queue>`. */
export function topicName(cluster: string, queue: QueueName): string {
  if (!CLUSTER_RE.test(cluster)) {
    throw new Error(`cluster name must be lowercase letters, digits and dashes (got "${cluster}")`);
  }
  if (!QUEUES.includes(queue)) throw new Error(`unknown queue "${queue}"`);
  return `s3-${cluster}-${queue}`;
}

/**
 * The partition a scanner on `hostIndex` always writes to: stable and collision-free while
 * hosts <= partitions, so one scheduler cleans the keys of one Cassandra host at a time.
 */
export function partitionForHost(hostIndex: number, partitions: number): number {
  if (!Number.isInteger(hostIndex) || hostIndex < 0)
    throw new Error(`host index must be a non-negative integer (got ${hostIndex})`);
  if (!Number.isInteger(partitions) || partitions < 1)
    throw new Error(`partitions must be a positive integer (got ${partitions})`);
  return hostIndex % partitions;
}
