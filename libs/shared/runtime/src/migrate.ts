import { createDriverClient } from '@ostore/shared/cassandra';
import { MigrateResult, MigrationLog, MigrationRunner, migrations } from '@ostore/metastore/schema';
import { BaseConfig } from './base-config';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Applies the metastore migrations with a short-lived session of its own (no keyspace bound,
 * since the keyspace may not exist yet). Waits up to `connectWaitMs` for Cassandra to answer.
 */
export async function applyMigrations(
  config: Pick<BaseConfig, 'cassandra' | 'replication'>,
  log: MigrationLog,
  connectWaitMs = 60_000,
): Promise<MigrateResult> {
  const deadline = Date.now() + connectWaitMs;
  for (;;) {
    const client = createDriverClient(config.cassandra, false);
    try {
      await client.connect();
      return await new MigrationRunner(client, log).migrate(migrations, {
        keyspace: config.cassandra.keyspace,
        replication: config.replication,
      });
    } catch (e) {
      const unreachable = (e as Error).name === 'NoHostAvailableError';
      if (!unreachable || Date.now() > deadline) throw e;
      log.warn('cassandra not reachable yet; retrying', { err: (e as Error).message });
      await sleep(1000);
    } finally {
      await client.shutdown().catch(() => undefined);
    }
  }
}
