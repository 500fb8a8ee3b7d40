import { CassandraClient, CassandraOptions, createDriverClient } from '@ostore/shared/cassandra';
import { cassandraOptions, freshKeyspace } from '@ostore/testing';
import { MigrationRunner } from './migration-runner';
import { migrations } from './migrations';
import { parseReplication } from './migration';

/**
 * Creates the keyspace of `options` with every migration (on a short-lived admin session).
 * `replication` as MIGRATE_REPLICATION reads it (default one replica).
 */
export async function migrateKeyspace(options: CassandraOptions, replication = 'SimpleStrategy:1'): Promise<void> {
  const admin = createDriverClient(options, false);
  try {
    await admin.connect();
    await new MigrationRunner(admin).migrate(migrations, { keyspace: options.keyspace, replication: parseReplication(replication) });
  } finally {
    await admin.shutdown();
  }
}

/**
 * A fresh keyspace of the test stack (dropped when the spec file ends) with every migration
 * applied: the one way specs get a metastore. Returns its name.
 */
export async function migratedKeyspace(label: string): Promise<string> {
  const keyspace = freshKeyspace(label);
  await migrateKeyspace(cassandraOptions(keyspace));
  return keyspace;
}

/** migratedKeyspace, and a connected session on it (the caller shuts it down). */
export async function migratedSession(label: string): Promise<CassandraClient> {
  const client = new CassandraClient(cassandraOptions(await migratedKeyspace(label)));
  await client.connect();
  return client;
}
