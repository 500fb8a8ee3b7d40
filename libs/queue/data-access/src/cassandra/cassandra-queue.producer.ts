import { QueueName, topicName } from '@ostore/queue/contracts';
import { assertPartition, Lanes } from '../lanes';
import { QueueProducer } from '../queue';
import { CassandraQueueSettings, DEFAULT_MESSAGE_TTL_SECONDS } from './cassandra-queue.options';
import { QueueTableStore } from './cassandra-queue.repository';

/**
 * QueueProducer over Cassandra tables. A publish reserves as many nums as it has messages with
 * one compare-and-set on the partition head (one Paxos round per call, not per message), then
 * appends the rows in num order. Calls to one partition are serialized in this process, so rows
 * of consecutive calls become visible in num order; writers in other processes may interleave,
 * and a reader that meets a not-yet-visible num waits for it (see the consumer's gap timeout).
 */
export class CassandraQueueProducer extends QueueProducer {
  private readonly lanes = new Lanes();
  private readonly counts = new Map<QueueName, Promise<number>>();
  private readonly heads = new Map<string, number>();

  constructor(
    private readonly repo: QueueTableStore,
    private readonly settings: CassandraQueueSettings,
  ) {
    super();
  }

  async publish(queue: QueueName, partition: number, messages: readonly (Buffer | string)[]): Promise<void> {
    const count = await this.partitionCount(queue);
    assertPartition(queue, partition, count);
    if (messages.length === 0) return;
    const topic = topicName(this.settings.cluster, queue);
    const key = `${topic}/${partition}`;
    const values = messages.map((m) => (typeof m === 'string' ? Buffer.from(m) : m));
    await this.lanes.run(key, async () => {
      try {
        const { first, next } = await this.repo.reserve(topic, partition, values.length, this.heads.get(key));
        this.heads.set(key, next);
        await this.repo.append(
          topic,
          partition,
          first,
          values,
          this.settings.messageTtlSeconds ?? DEFAULT_MESSAGE_TTL_SECONDS,
        );
      } catch (e) {
        this.heads.delete(key);
        throw e;
      }
    });
  }

  partitionCount(queue: QueueName): Promise<number> {
    let count = this.counts.get(queue);
    if (!count) {
      count = this.repo.topicPartitions(topicName(this.settings.cluster, queue), this.settings.partitions);
      this.counts.set(queue, count);
      count.catch(() => this.counts.delete(queue));
    }
    return count;
  }

  async close(): Promise<void> {
    this.counts.clear();
  }
}
