import { randomBytes } from 'crypto';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { CassandraClient, CassandraOptions, createDriverClient } from '@ostore/shared/cassandra';

/** A fresh migrated keyspace on the local node at `port` and a session on it; `drop` removes it unless kept. */
export async function benchKeyspace(
  label: string,
  port: number,
  keep: boolean,
): Promise<{ client: CassandraClient; keyspace: string; drop: () => Promise<void> }> {
  const keyspace = `bench_${label}_${randomBytes(3).toString('hex')}`;
  const options: CassandraOptions = {
    contactPoints: ['127.0.0.1'],
    port,
    localDataCenter: 'datacenter1',
    keyspace,
    consistency: 'localQuorum',
    serialConsistency: 'localSerial',
    requestTimeoutMs: 12_000,
    applicationName: `ostore-bench-${label}`,
  };
  const admin = createDriverClient(options, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  const client = new CassandraClient(options);
  await client.connect();
  return {
    client,
    keyspace,
    drop: async () => {
      await client.shutdown();
      // a loaded node may not drop in time: the results are printed already, so say so and go on
      if (!keep)
        await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch((e: Error) => process.stderr.write(`could not drop ${keyspace}: ${e.message}\n`));
      await admin.shutdown();
    },
  };
}
