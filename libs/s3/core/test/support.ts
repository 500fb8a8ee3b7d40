import type { Metastore } from '@ostore/metastore/data-access';
import { migratedKeyspace } from '@ostore/metastore/schema/testing';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import type { BlockManager } from '@ostore/storage/blocks';
import { alice, coreError, CoreErrorFacts, getObject, newCoreFixture, putObject } from '../src/testing';
import type { ConvergenceStep, S3Core, S3CoreSettings, UsageEvent } from '../src';

export { alice, bob, body, drain, pattern, refsOf } from '../src/testing';

export interface Harness {
  core: S3Core;
  ms: Metastore;
  client: CassandraClient;
  blocks: BlockManager;
  usage: UsageEvent[];
  /** Every post-commit step the core reported failed. */
  convergenceFailures: ConvergenceStep[];
  /** How many null versions the core left to the scan (nullConvergence 'scan'). */
  convergenceDeferred: { count: number };
  /** GET/HEAD's newest-row reads: keys per Cassandra read, and keys read again alone. */
  readGroups: { keys: number[]; fallbacks: number };
  /** A second "gateway" on the same keyspace (own session, own VersionClock). */
  another(): Promise<S3Core>;
  close(): Promise<void>;
}

/** A fresh migrated keyspace with the real Cassandra block manager (small blocks) and the S3 core. */
export async function harness(label: string, settings: Partial<S3CoreSettings> = {}, clock: Clock = new SystemClock()): Promise<Harness> {
  const fixture = await newCoreFixture(await migratedKeyspace(label), {
    clock,
    settings: { minPartSize: 100 * 1024, ...settings },
    logLevel: process.env.LOG_LEVEL,
  });
  return { ...fixture, another: async () => (await fixture.another()).core };
}

/** The CQL statements `fn` sends through `client` (a core's session), and what it returned. */
export async function queriesOf<T>(client: CassandraClient, fn: () => Promise<T>): Promise<{ result: T; cql: string[] }> {
  const spy = jest.spyOn(client, 'execute');
  try {
    const result = await fn();
    return { result, cql: spy.mock.calls.map((c) => String(c[0])) };
  } finally {
    spy.mockRestore();
  }
}

/** Expects an S3DomainError with this code (and returns what it said). */
export async function s3code(p: Promise<unknown>): Promise<CoreErrorFacts> {
  return coreError(p);
}

export async function put(core: S3Core, bucket: string, key: string, data: string | Buffer, owner = alice) {
  return putObject(core, bucket, key, data, owner);
}

export async function get(core: S3Core, bucket: string, key: string, versionId?: string): Promise<string> {
  return (await getObject(core, bucket, key, versionId)).toString();
}
