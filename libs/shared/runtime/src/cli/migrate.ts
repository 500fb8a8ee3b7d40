/**
 * `npm run migrate`: creates the metastore keyspace if needed and applies pending migrations.
 * Reads the same CASSANDRA_* variables as the apps; exits non-zero with a precise message on failure.
 */
import { exitOnConfigError } from '@ostore/shared/config';
import { loadMigrateConfig } from '../config/migrate.config';
import { applyMigrations } from '../migrate';

async function main(): Promise<void> {
  let config;
  try {
    config = loadMigrateConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  const log = {
    info: (msg: string, fields: Record<string, unknown> = {}) => process.stdout.write(`${msg} ${JSON.stringify(fields)}\n`),
    warn: (msg: string, fields: Record<string, unknown> = {}) => process.stderr.write(`warning: ${msg} ${JSON.stringify(fields)}\n`),
  };
  const result = await applyMigrations(config, log, 30_000);
  process.stdout.write(
    `keyspace ${config.cassandra.keyspace}: applied [${result.applied.join(', ')}], already applied [${result.alreadyApplied.join(', ')}]\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`migrate failed: ${(e as Error).message}\n`);
  process.exit(1);
});
