import { compactionsPending } from './compactions';

describe(compactionsPending.name, () => {
  it('reads Cassandra 5 compactionstats: none pending or running', () => {
    const out = ['concurrent compactors            1', 'pending tasks                    0', 'compactions completed            1395', ''].join('\n');
    expect(compactionsPending(out)).toBe(0);
  });

  it('counts pending tasks and each running compaction row', () => {
    const out = [
      'concurrent compactors            1',
      'pending tasks                    2',
      'id                                   compaction type keyspace table    completed total   unit  progress',
      '8f0e3e50-1d2b-11ef-9c1a-8b5f2f0d1e11 Compaction      ks1      versions 1048576   4194304 bytes 25.00%',
      'Active compaction remaining time :   0h00m02s',
    ].join('\n');
    expect(compactionsPending(out)).toBe(3);
  });

  it('reads the older "pending tasks: N" form', () => {
    expect(compactionsPending('pending tasks: 4\n')).toBe(4);
  });

  it('is undefined for output it does not understand', () => {
    expect(compactionsPending('error: connection refused')).toBeUndefined();
  });
});
