import { createHash, randomUUID } from 'crypto';
import { Client, types } from 'cassandra-driver';
import { assertKeyspaceName, Migration, Replication, replicationCql } from './migration';

export interface MigrationLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface MigrateOptions {
  keyspace: string;
  replication: Replication;
  /** How long to wait for another process's migration lock. */
  lockWaitMs?: number;
  /** Lock lease; a crashed migrator's lock expires after it. */
  lockTtlSeconds?: number;
}

export interface MigrateResult {
  applied: number[];
  alreadyApplied: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deterministic table id, so that two processes creating the same bootstrap table concurrently agree on it. */
export function tableId(keyspace: string, table: string): string {
  const h = createHash('sha1').update(`ostore:${keyspace}.${table}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function checksumOf(m: Migration): string {
  return createHash('sha256').update(m.statements.join('\n;\n')).digest('hex').slice(0, 16);
}

/**
 * Applies pending migrations, recording each in `schema_migrations`.
 *
 * Concurrency: the keyspace and the two bookkeeping tables are created with IF NOT EXISTS and
 * fixed table ids, so racing processes converge; the migrations themselves run only under an
 * LWT lock row (TTL'd lease), so two apps starting at once never issue the same DDL together.
 * Each statement is idempotent, so a migrator that dies midway is simply re-run.
 */
export class MigrationRunner {
  constructor(
    private readonly client: Client,
    private readonly log: MigrationLog = { info: () => undefined, warn: () => undefined },
  ) {}

  async migrate(all: Migration[], options: MigrateOptions): Promise<MigrateResult> {
    const ks = options.keyspace;
    assertKeyspaceName(ks);
    const ddl = (cql: string) =>
      this.client.execute(cql, [], { consistency: types.consistencies.all, prepare: false });
    await ddl(
      `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = ${replicationCql(options.replication)}`,
    );
    await ddl(
      `CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations (version int PRIMARY KEY, name text, checksum text, applied_at timestamp) WITH ID = ${tableId(ks, 'schema_migrations')}`,
    );
    await ddl(
      `CREATE TABLE IF NOT EXISTS ${ks}.schema_lock (id text PRIMARY KEY, owner text, acquired_at timestamp) WITH ID = ${tableId(ks, 'schema_lock')}`,
    );

    const owner = randomUUID();
    await this.acquireLock(ks, owner, options.lockWaitMs ?? 120_000, options.lockTtlSeconds ?? 300);
    try {
      const rs = await this.client.execute(`SELECT version, checksum FROM ${ks}.schema_migrations`, [], {
        consistency: types.consistencies.quorum,
        prepare: false,
      });
      const done = new Map(rs.rows.map((r) => [r['version'] as number, r['checksum'] as string]));
      const result: MigrateResult = { applied: [], alreadyApplied: [] };
      for (const m of [...all].sort((a, b) => a.version - b.version)) {
        const sum = checksumOf(m);
        if (done.has(m.version)) {
          if (done.get(m.version) !== sum) {
            this.log.warn('applied migration differs from the code', {
              keyspace: ks,
              version: m.version,
              name: m.name,
            });
          }
          result.alreadyApplied.push(m.version);
          continue;
        }
        for (const statement of m.statements) await ddl(statement.replace(/\{ks\}/g, ks));
        await this.client.execute(
          `INSERT INTO ${ks}.schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, toTimestamp(now()))`,
          [m.version, m.name, sum],
          { prepare: true, consistency: types.consistencies.quorum },
        );
        this.log.info('migration applied', { keyspace: ks, version: m.version, name: m.name });
        result.applied.push(m.version);
      }
      return result;
    } finally {
      await this.client
        .execute(`DELETE FROM ${ks}.schema_lock WHERE id = 'migrations' IF owner = ?`, [owner], {
          prepare: true,
        })
        .catch((e) =>
          this.log.warn('could not release migration lock; it expires by TTL', { err: (e as Error).message }),
        );
    }
  }

  private async acquireLock(ks: string, owner: string, waitMs: number, ttlSeconds: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      const rs = await this.client.execute(
        `INSERT INTO ${ks}.schema_lock (id, owner, acquired_at) VALUES ('migrations', ?, toTimestamp(now())) IF NOT EXISTS USING TTL ${ttlSeconds}`,
        [owner],
        { prepare: true },
      );
      // a driver retry of an insert that did apply answers not-applied with our own row
      if (rs.wasApplied() || rs.first()?.['owner'] === owner) return;
      if (Date.now() > deadline) {
        throw new Error(
          `could not take the migration lock of keyspace ${ks} within ${waitMs} ms (held by ${rs.first()?.['owner']})`,
        );
      }
      if (attempt === 0)
        this.log.info('waiting for another migrator', { keyspace: ks, holder: rs.first()?.['owner'] });
      await sleep(250 + Math.random() * 250);
    }
  }
}
