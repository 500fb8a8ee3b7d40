import { KafkaClient } from '../src';
import { freshCluster, stackEnv } from '@ostore/testing';

describe('topics on a real Kafka', () => {
  const clients: KafkaClient[] = [];
  const client = (partitions: number, cluster: string) => {
    const c = new KafkaClient({
      brokers: stackEnv().kafkaBrokers,
      clientId: 'test',
      cluster,
      partitions,
      replicationFactor: 1,
    });
    clients.push(c);
    return c;
  };
  afterAll(() => Promise.all(clients.map((c) => c.close())));

  it('creates a queue topic on demand with the configured partition count', async () => {
    const cluster = freshCluster('topics');
    const sut = client(5, cluster);
    const admin = await sut.admin();
    expect(await admin.listTopics()).not.toContain(`s3-${cluster}-versions`);

    const topic = await sut.ensureTopic('versions');

    expect(topic).toBe(`s3-${cluster}-versions`);
    expect(await sut.partitionCount(topic)).toBe(5);
  });

  it('defaults to 3 partitions and tolerates concurrent creators', async () => {
    const cluster = freshCluster('race');
    const [a, b] = [client(3, cluster), client(3, cluster)];
    const [ta, tb] = await Promise.all([a.ensureTopic('uploads'), b.ensureTopic('uploads')]);
    expect(ta).toBe(tb);
    expect(await a.partitionCount(ta)).toBe(3);
  });

  it('delivers to the partition a producer picks', async () => {
    const cluster = freshCluster('deliver');
    const sut = client(3, cluster);
    const topic = await sut.ensureTopic('versions');
    const producer = await sut.producer();
    const [meta] = await producer.send({ topic, messages: [{ value: 'hello', partition: 2 }] });
    expect(meta.partition).toBe(2);
    const offsets = await (await sut.admin()).fetchTopicOffsets(topic);
    expect(offsets.find((o) => o.partition === 2)?.high).toBe('1');
  });
});
