import { Client, types } from 'cassandra-driver';
import { createDriverClient } from '@ostore/shared/cassandra';
import { MigrationRunner, migrations, parseReplication } from '../src';
import { cassandraOptions, freshKeyspace } from '@ostore/testing';

describe('metastore migrations against a real Cassandra', () => {
  let client: Client;
  const replication = parseReplication('SimpleStrategy:1');

  beforeAll(async () => {
    client = createDriverClient(cassandraOptions('unused'), false);
    await client.connect();
  });
  afterAll(() => client.shutdown());

  const tablesOf = async (ks: string) =>
    (
      await client.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [ks], {
        prepare: true,
      })
    ).rows
      .map((r) => r['table_name'] as string)
      .sort();

  it('creates the keyspace with every table, and a second run is a no-op', async () => {
    const keyspace = freshKeyspace('twice');
    const sut = new MigrationRunner(client);

    const first = await sut.migrate(migrations, { keyspace, replication });
    expect(first.applied).toEqual(migrations.map((m) => m.version));

    const tables = await tablesOf(keyspace);
    for (const t of [
      'versions',
      'version_meta',
      'uploads',
      'upload_parts',
      'objects',
      'object_folders',
      'buckets',
      'locks',
      'block_refs',
      'blocks_in_flight',
      'block_gc_progress',
      'block_chunks',
    ]) {
      expect(tables).toContain(t);
    }
    const recorded = await client.execute(`SELECT version, applied_at FROM ${keyspace}.schema_migrations`);
    const appliedAt = recorded.rows.map((r) => (r['applied_at'] as Date).getTime());

    const second = await sut.migrate(migrations, { keyspace, replication });
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(migrations.map((m) => m.version));
    expect(await tablesOf(keyspace)).toEqual(tables);
    const again = await client.execute(`SELECT version, applied_at FROM ${keyspace}.schema_migrations`);
    expect(again.rows.map((r) => (r['applied_at'] as Date).getTime())).toEqual(appliedAt);
  });

  it('applies each migration exactly once when two processes start at the same time', async () => {
    const keyspace = freshKeyspace('race');
    const other = createDriverClient(cassandraOptions('unused'), false);
    await other.connect();
    try {
      const [a, b] = await Promise.all([
        new MigrationRunner(client).migrate(migrations, { keyspace, replication }),
        new MigrationRunner(other).migrate(migrations, { keyspace, replication }),
      ]);
      const all = [...a.applied, ...b.applied].sort((x, y) => x - y);
      expect(all).toEqual(migrations.map((m) => m.version));
      expect([...a.alreadyApplied, ...b.alreadyApplied].sort((x, y) => x - y)).toEqual(migrations.map((m) => m.version));
      const lock = await client.execute(`SELECT * FROM ${keyspace}.schema_lock`, [], {
        consistency: types.consistencies.serial,
      });
      expect(lock.rowLength).toBe(0);
    } finally {
      await other.shutdown();
    }
  });

  it('uses the configured replication', async () => {
    const keyspace = freshKeyspace('repl');
    await new MigrationRunner(client).migrate(migrations, { keyspace, replication });
    const rs = await client.execute(
      'SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?',
      [keyspace],
      { prepare: true },
    );
    expect(rs.first()['replication']).toMatchObject({
      class: 'org.apache.cassandra.locator.SimpleStrategy',
      replication_factor: '1',
    });
  });
});
