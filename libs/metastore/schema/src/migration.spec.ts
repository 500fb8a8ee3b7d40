import { parseReplication, replicationCql, assertKeyspaceName } from './migration';
import { checksumOf, tableId } from './migration-runner';
import { migrations } from './migrations';

describe(parseReplication.name, () => {
  it('reads SimpleStrategy with a factor', () => {
    const sut = parseReplication('SimpleStrategy:1');
    expect(replicationCql(sut)).toBe("{'class': 'SimpleStrategy', 'replication_factor': 1}");
  });

  it('reads NetworkTopologyStrategy with several data centres', () => {
    const sut = parseReplication('NetworkTopologyStrategy:dc1=3,dc2=2');
    expect(replicationCql(sut)).toBe("{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}");
  });

  it.each([
    'SimpleStrategy',
    'SimpleStrategy:0',
    'NetworkTopologyStrategy:',
    'NetworkTopologyStrategy:dc1=x',
    'Everywhere:3',
  ])('rejects %s with a message naming the expected form', (spec) => {
    expect(() => parseReplication(spec)).toThrow(/SimpleStrategy|NetworkTopologyStrategy/);
  });
});

describe('migrations', () => {
  it('have unique increasing versions and only idempotent statements', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    for (const m of migrations) {
      for (const s of m.statements)
        expect(s).toMatch(/^\s*(CREATE (TABLE|INDEX|TYPE) IF NOT EXISTS|ALTER TABLE)/);
    }
  });

  it('checksums change with the statements', () => {
    const m = migrations[0];
    expect(checksumOf(m)).toBe(checksumOf({ ...m }));
    expect(checksumOf({ ...m, statements: [...m.statements, 'x'] })).not.toBe(checksumOf(m));
  });

  it('derives a stable version-5 table id per keyspace and table', () => {
    expect(tableId('ks', 't')).toBe(tableId('ks', 't'));
    expect(tableId('ks', 't')).not.toBe(tableId('ks2', 't'));
    expect(tableId('ks', 't')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('rejects keyspace names that are not plain identifiers', () => {
    expect(() => assertKeyspaceName('ostore; DROP')).toThrow(/keyspace name/);
    expect(() => assertKeyspaceName('ostore_test_1')).not.toThrow();
  });
});
