import { randomUUID } from 'crypto';
import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { UsageDelta } from '@ostore/queue/contracts';
import { CassandraClient, createDriverClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { cassandraOptions, freshKeyspace } from '@ostore/testing';
import { LocalUsageState } from './local/local-usage.state';
import { OwnedWindows } from './owned-windows';
import { StatsMetrics } from './stats.metrics';
import { UsageRetention } from './usage-event.store';
import { usageStores, UsageStores } from './usage-stores';

/** A usage delta with plausible defaults (a 1 KiB store of one object, now). */
export function usageDelta(overrides: Partial<UsageDelta> = {}): UsageDelta {
  return {
    bucketId: '5f0c6a52-6a0e-4b8e-9d5c-2b0a7f1e0c01',
    bucket: 'bucket-a',
    kind: 'store',
    bytes: 1024,
    objects: 1,
    at: new Date(),
    source: 'gateway',
    sourceHost: 'gw-0',
    eventId: randomUUID(),
    ...overrides,
  };
}

/** The stats stores over one session, wired as the app wires them. */
export interface StatsStores extends UsageStores {
  client: CassandraClient;
  metrics: StatsMetrics;
  local: LocalUsageState;
  close(): Promise<void>;
}

/** A local store in a fresh temporary directory; `remove()` closes and deletes it. */
export async function tempLocalState(label: string): Promise<LocalUsageState & { remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `ostore-stats-${label}-`));
  const local = await LocalUsageState.open(dir);
  return Object.assign(local, {
    remove: async () => {
      await local.close();
      await rm(dir, { recursive: true, force: true });
    },
  });
}

/**
 * For integration specs: a fresh migrated keyspace of the test stack and the stats stores over it
 * (the recorder reporting to `owned` when given, as in the app).
 */
export async function statsStores(
  label: string,
  clock: Clock,
  retention: UsageRetention,
  options: { owned?: OwnedWindows } = {},
): Promise<StatsStores> {
  const keyspace = freshKeyspace(label);
  const admin = createDriverClient(cassandraOptions(keyspace), false);
  await admin.connect();
  try {
    await new MigrationRunner(admin).migrate(migrations, {
      keyspace,
      replication: parseReplication('SimpleStrategy:1'),
    });
  } finally {
    await admin.shutdown();
  }
  const client = new CassandraClient(cassandraOptions(keyspace));
  await client.connect();
  const metrics = new StatsMetrics();
  const local = await tempLocalState(label);
  return {
    client,
    metrics,
    local,
    ...usageStores(client, clock, retention, metrics, local, options),
    close: async () => {
      await local.remove();
      await client.shutdown();
    },
  };
}
