import { loadStatsConfig } from './stats.config';

describe(loadStatsConfig.name, () => {
  it('consumes as group `stats`, retention in seconds from days', () => {
    const sut = loadStatsConfig({ STATS_EVENT_RETENTION_DAYS: '2', STATS_BATCH_SIZE: '10' });
    expect(sut.queue).toEqual({
      group: 'stats',
      drainTimeoutMs: 10_000,
      batchSize: 10,
      partitionConcurrency: 3,
      fetchWaitMs: 500,
      fetchMinBytes: 256 * 1024,
    });
    expect(loadStatsConfig({ STATS_FETCH_WAIT_MS: '50', STATS_FETCH_MIN_BYTES: '1' }).queue).toMatchObject({ fetchWaitMs: 50, fetchMinBytes: 1 });
    expect(sut.retention).toEqual({ eventsSeconds: 2 * 86_400, aggregatesSeconds: 400 * 86_400 });
  });

  it('reads the local store directory and its retention (seconds to ms)', () => {
    const sut = loadStatsConfig({ STATS_DATA_DIR: '/var/lib/ostore/stats', STATS_LOCAL_RETENTION_SECONDS: '60' });
    expect(sut.local).toEqual({
      dir: '/var/lib/ostore/stats',
      retentionMs: 60_000,
      intervalMs: 300_000,
      batchSize: 1000,
      writeBufferBytes: 64 * 1024 * 1024,
    });
    expect(loadStatsConfig({ STATS_LOCAL_WRITE_BUFFER_BYTES: '8388608' }).local.writeBufferBytes).toBe(8 * 1024 * 1024);
    expect(() => loadStatsConfig({ STATS_LOCAL_WRITE_BUFFER_BYTES: '4096' })).toThrow(/STATS_LOCAL_WRITE_BUFFER_BYTES/);
  });

  it('names every bad variable', () => {
    expect(() => loadStatsConfig({ STATS_EVENT_RETENTION_DAYS: '0', STATS_BATCH_SIZE: 'many' })).toThrow(
      /STATS_EVENT_RETENTION_DAYS[\s\S]*STATS_BATCH_SIZE|STATS_BATCH_SIZE[\s\S]*STATS_EVENT_RETENTION_DAYS/,
    );
  });
});
