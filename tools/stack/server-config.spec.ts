import { parse } from 'yaml';

const { configFromEnv } = require('./config.cjs') as { configFromEnv(opts: Record<string, unknown>): unknown };
const { cassandraYaml } = require('./server-config.cjs') as { cassandraYaml(cfg: unknown, node: number): string };

describe("the stack's cassandra.yaml", () => {
  const yamlOf = (opts: Record<string, unknown>) => parse(cassandraYaml(configFromEnv({ stackDir: '/tmp/ostore-yaml-spec', ...opts }), 1));

  it("keeps Cassandra's sstable format and Paxos variant unless asked", () => {
    const saved = { f: process.env.OSTORE_CASSANDRA_SSTABLE_FORMAT, p: process.env.OSTORE_CASSANDRA_PAXOS_VARIANT };
    delete process.env.OSTORE_CASSANDRA_SSTABLE_FORMAT;
    delete process.env.OSTORE_CASSANDRA_PAXOS_VARIANT;
    try {
      const y = yamlOf({});
      expect(y.sstable).toBeUndefined();
      expect(y.paxos_variant).toBeUndefined();
      expect(y.storage_compatibility_mode).toBe('NONE');
    } finally {
      if (saved.f !== undefined) process.env.OSTORE_CASSANDRA_SSTABLE_FORMAT = saved.f;
      if (saved.p !== undefined) process.env.OSTORE_CASSANDRA_PAXOS_VARIANT = saved.p;
    }
  });

  it('writes the sstable format and the Paxos variant it is given', () => {
    const y = yamlOf({ sstableFormat: 'bti', paxosVariant: 'v2' });
    expect(y.sstable).toEqual({ selected_format: 'bti' });
    expect(y.paxos_variant).toBe('v2');
  });

  it('keeps small unslabbed memtables for tests unless asked for Cassandra\'s own', () => {
    const saved = process.env.OSTORE_CASSANDRA_MEMTABLES;
    delete process.env.OSTORE_CASSANDRA_MEMTABLES;
    try {
      const test = yamlOf({});
      expect(test.memtable_allocation_type).toBe('unslabbed_heap_buffers');
      expect(test.memtable_heap_space).toBe('64MiB');
      const shipped = yamlOf({ memtables: 'default' });
      expect(shipped.memtable_allocation_type).toBe('heap_buffers');
      expect(shipped.memtable_heap_space).toBeUndefined();
      expect(shipped.memtable_offheap_space).toBeUndefined();
      expect(shipped.memtable.configurations.default).toEqual({ inherits: 'skiplist' });
      expect(() => yamlOf({ memtables: 'huge' })).toThrow(/OSTORE_CASSANDRA_MEMTABLES must be test or default/);
    } finally {
      if (saved !== undefined) process.env.OSTORE_CASSANDRA_MEMTABLES = saved;
    }
  });
});
