import { AppProcess, APPS } from '@ostore/testing';

describe('an app with a bad configuration', () => {
  it.each(APPS)('%s exits non-zero naming every bad variable', async (app) => {
    const sut = new AppProcess(app, {
      CASSANDRA_PORT: 'ninety',
      KAFKA_TOPIC_PARTITIONS: '0',
      CASSANDRA_REPLICATION: 'Everywhere:3',
      MANAGEMENT_PORT: '70000',
    }).start();
    const status = await sut.waitForExit(30000);
    const output = sut.output.join('');
    expect(status.code).not.toBe(0);
    expect(output).toContain('Invalid configuration');
    for (const name of [
      'CASSANDRA_PORT',
      'KAFKA_TOPIC_PARTITIONS',
      'CASSANDRA_REPLICATION',
      'MANAGEMENT_PORT',
    ]) {
      expect(output).toContain(name);
    }
    expect(output).not.toContain('CASSANDRA_KEYSPACE');
  });
});
