import { QueueTransport } from '@ostore/queue/data-access';
import { PartitionOwnership } from '@ostore/stats/data-access';

/**
 * The usage-topic partitions this stats process reads, as its queue transport's subscription
 * tells them (before the subscription starts: none, and no generation, so nothing is answered
 * from memory).
 */
export function usageOwnership(transport: QueueTransport): PartitionOwnership {
  return {
    generation: () => transport.subscription('usage')?.assignmentGeneration?.(),
    owns: (partition) => transport.subscription('usage')?.assignedPartitions().includes(partition) ?? false,
  };
}
