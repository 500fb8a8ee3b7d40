import { ConfigError } from '@ostore/shared/config';
import { loadScannerConfig } from './scanner.config';

describe(loadScannerConfig.name, () => {
  it('defaults to the first contact point, host index 0, AWS days and the Kafka queue', () => {
    const sut = loadScannerConfig({ CASSANDRA_CONTACT_POINTS: '10.0.0.7,10.0.0.8' });
    expect(sut.scan).toMatchObject({
      nodeAddress: '10.0.0.7',
      hostIndex: 0,
      hostId: undefined,
      intervalMs: 3_600_000,
      fetchSize: 2000,
      rowsPerSecond: 20000,
      tables: ['versions', 'uploads', 'block_refs'],
    });
    expect(sut.lifecycle).toEqual({ debugDaySeconds: 0, overdueGraceMs: 86_400_000 });
    expect(sut.queueBackend).toBe('kafka');
    expect(sut.management.port).toBe(9101);
  });

  it('reads every scanner variable', () => {
    const sut = loadScannerConfig({
      SCANNER_NODE_ADDRESS: '10.0.0.9',
      SCANNER_HOST_INDEX: '5',
      SCANNER_HOST_ID: 'cass-5.dc1',
      SCAN_INTERVAL_SECONDS: '60',
      SCAN_FETCH_SIZE: '500',
      SCAN_RATE_LIMIT_ROWS_PER_SECOND: '0',
      SCAN_CHECKPOINT_SECONDS: '2',
      SCAN_PUBLISH_BATCH: '50',
      SCAN_TABLES: 'uploads',
      LIFECYCLE_DEBUG_DAY_SECONDS: '10',
      LIFECYCLE_OVERDUE_GRACE_SECONDS: '30',
      QUEUE_BACKEND: 'cassandra',
    });
    expect(sut.scan).toEqual({
      nodeAddress: '10.0.0.9',
      hostIndex: 5,
      hostId: 'cass-5.dc1',
      intervalMs: 60_000,
      fetchSize: 500,
      rowsPerSecond: 0,
      checkpointMs: 2000,
      publishBatch: 50,
      tables: ['uploads'],
    });
    expect(sut.lifecycle).toEqual({ debugDaySeconds: 10, overdueGraceMs: 30_000 });
    expect(sut.queueBackend).toBe('cassandra');
  });

  it('names every bad variable at once', () => {
    let err: ConfigError | undefined;
    try {
      loadScannerConfig({ SCANNER_HOST_INDEX: '-1', SCAN_TABLES: 'versions,objects', SCAN_FETCH_SIZE: 'many', QUEUE_BACKEND: 'redis' });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems.map((p) => p.split(':')[0]).sort()).toEqual(['QUEUE_BACKEND', 'SCANNER_HOST_INDEX', 'SCAN_FETCH_SIZE', 'SCAN_TABLES']);
  });
});
