import { Admin, AssignerProtocol, Kafka, logLevel, Producer } from 'kafkajs';
import { QueueName, topicName } from '@ostore/queue/contracts';
import { producerPartitioner } from './kafka/key-partitioner';
import { kafkaSecurity, KafkaOptions } from './kafka.options';

/**
 * The Kafka consumer group of a subscription: `<topic>.<group>`, one group per queue, so the group
 * protocol gives each partition to at most one member, and members of different queues never
 * rebalance each other.
 */
export function consumerGroupId(topic: string, group: string): string {
  return `${topic}.${group}`;
}

/** One member of a consumer group as the group coordinator describes it. */
export interface GroupMember {
  memberId: string;
  /** What the member announced (`KafkaQueueConsumerSettings.memberData`); '' when nothing. */
  data: string;
  /** The partitions of the queue's topic assigned to it in the group's current generation. */
  partitions: number[];
}

/** A consumer group of a queue: its members and their partitions, from the coordinator. */
export interface GroupAssignment {
  /**
   * True when the group is `Stable`: the assignments are those of its current generation. In any
   * other state (rebalancing, empty, dead) the members' partitions mean nothing.
   */
  stable: boolean;
  /** Partitions of the queue's topic now. */
  partitionCount: number;
  members: GroupMember[];
}

/**
 * The app's Kafka client: an admin connection for topic management and health, and a lazily
 * connected producer. Topics are created on demand, by producers and consumers alike.
 */
export class KafkaClient {
  readonly kafka: Kafka;
  private adminClient?: Promise<Admin>;
  private producerClient?: Promise<Producer>;
  private readonly known = new Set<string>();

  constructor(readonly options: KafkaOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3000,
      requestTimeout: 10000,
      retry: { retries: 3, initialRetryTime: 200 },
      ...kafkaSecurity(options),
    });
  }

  topic(queue: QueueName): string {
    return topicName(this.options.cluster, queue);
  }

  admin(): Promise<Admin> {
    if (!this.adminClient) {
      const admin = this.kafka.admin();
      this.adminClient = admin.connect().then(() => admin);
      this.adminClient.catch(() => (this.adminClient = undefined));
    }
    return this.adminClient;
  }

  producer(): Promise<Producer> {
    if (!this.producerClient) {
      const producer = this.kafka.producer({
        allowAutoTopicCreation: false,
        idempotent: false,
        createPartitioner: producerPartitioner,
      });
      this.producerClient = producer.connect().then(() => producer);
      this.producerClient.catch(() => (this.producerClient = undefined));
    }
    return this.producerClient;
  }

  /** Creates the queue's topic with the configured partition count unless it exists; returns its name. */
  async ensureTopic(queue: QueueName, partitions = this.options.partitions): Promise<string> {
    const topic = this.topic(queue);
    if (this.known.has(topic)) return topic;
    const admin = await this.admin();
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: [{ topic, numPartitions: partitions, replicationFactor: this.options.replicationFactor }],
        });
        break;
      } catch (e) {
        // TOPIC_ALREADY_EXISTS from a concurrent creator is fine. Waiting for the leaders of a topic
        // that is still being created (by this call or a concurrent one) can answer
        // UNKNOWN_TOPIC_OR_PARTITION: try again (the retry then finds it existing).
        const type = (e as { type?: string }).type;
        if (type === 'TOPIC_ALREADY_EXISTS') break;
        if (type !== 'UNKNOWN_TOPIC_OR_PARTITION' || attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
    this.known.add(topic);
    return topic;
  }

  /**
   * The topic's partition count. Right after a creation (here or by another process) a broker's
   * metadata can still answer UNKNOWN_TOPIC_OR_PARTITION: asked again, with a growing pause, up to
   * ten times, instead of failing the caller's boot.
   */
  async partitionCount(topic: string): Promise<number> {
    const admin = await this.admin();
    for (let attempt = 1; ; attempt++) {
      try {
        const meta = await admin.fetchTopicMetadata({ topics: [topic] });
        return meta.topics[0]?.partitions.length ?? 0;
      } catch (e) {
        if ((e as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION' || attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }

  /**
   * The queue's consumer group `group` as its coordinator sees it now (one DescribeGroups request
   * and one metadata request): who holds which partition of the queue's topic, and what each
   * member announced. A snapshot: it is outdated by the next rebalance.
   */
  async groupAssignment(queue: QueueName, group: string): Promise<GroupAssignment> {
    const topic = this.topic(queue);
    const admin = await this.admin();
    const [described, partitionCount] = await Promise.all([
      admin.describeGroups([consumerGroupId(topic, group)]),
      this.partitionCount(topic),
    ]);
    const g = described.groups[0];
    const members: GroupMember[] = (g?.members ?? []).map((m) => {
      const decode = <T>(f: () => T): T | undefined => {
        try {
          return f();
        } catch {
          return undefined;
        }
      };
      const meta = m.memberMetadata.length
        ? decode(() => AssignerProtocol.MemberMetadata.decode(m.memberMetadata))
        : undefined;
      const assignment = m.memberAssignment.length
        ? decode(() => AssignerProtocol.MemberAssignment.decode(m.memberAssignment))
        : undefined;
      return {
        memberId: m.memberId,
        data: meta?.userData?.toString('utf8') ?? '',
        partitions: [...(assignment?.assignment[topic] ?? [])].sort((a, b) => a - b),
      };
    });
    return { stable: g?.state === 'Stable', partitionCount, members };
  }

  /** True when the cluster answers a metadata request now. */
  async ping(): Promise<boolean> {
    const admin = await this.admin();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0;
  }

  async close(): Promise<void> {
    const closing: Promise<void>[] = [];
    if (this.producerClient)
      closing.push(this.producerClient.then((p) => p.disconnect()).catch(() => undefined));
    if (this.adminClient) closing.push(this.adminClient.then((a) => a.disconnect()).catch(() => undefined));
    this.producerClient = undefined;
    this.adminClient = undefined;
    await Promise.all(closing);
  }
}
