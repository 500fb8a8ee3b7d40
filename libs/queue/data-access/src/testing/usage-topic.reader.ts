import { randomBytes } from 'crypto';
import { Consumer } from 'kafkajs';
import { UsageDelta } from '@ostore/queue/contracts';
import { waitFor } from '@ostore/testing';
import { KafkaClient } from '../kafka.client';

/** One message of the usage topic as a test sees it. */
export interface UsageRecordOnTopic {
  key: string | undefined;
  partition: number;
  offset: number;
  delta: UsageDelta;
}

/**
 * For integration tests: reads the whole `usage` topic of a cluster from the beginning (its own
 * consumer group) and decodes every message with the UsageDelta contract — an undecodable one
 * fails `until`.
 */
export class UsageTopicReader {
  readonly records: UsageRecordOnTopic[] = [];
  private readonly errors: Error[] = [];

  private constructor(private readonly consumer: Consumer) {}

  /** Creates the topic if needed (as a producer or consumer would), then reads it from the start. */
  static async start(client: KafkaClient): Promise<UsageTopicReader> {
    const topic = await client.ensureTopic('usage');
    const consumer = client.kafka.consumer({ groupId: `usage-reader-${randomBytes(4).toString('hex')}`, sessionTimeout: 10_000 });
    const reader = new UsageTopicReader(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        try {
          reader.records.push({
            key: message.key?.toString('utf8'),
            partition,
            offset: Number(message.offset),
            delta: UsageDelta.fromMessage(message.value ?? ''),
          });
        } catch (e) {
          reader.errors.push(e as Error);
        }
      },
    });
    return reader;
  }

  /** Waits until `done(records)` holds. */
  async until(what: string, done: (records: UsageRecordOnTopic[]) => boolean, timeoutMs = 30_000): Promise<UsageRecordOnTopic[]> {
    return waitFor(
      what,
      async () => {
        if (this.errors.length > 0) throw new Error(`undecodable usage message: ${this.errors[0].message}`);
        return done(this.records) ? [...this.records] : undefined;
      },
      timeoutMs,
      100,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}; read so far: ${JSON.stringify(this.records.map((r) => r.delta))}`);
    });
  }

  async close(): Promise<void> {
    await this.consumer.disconnect();
  }
}
