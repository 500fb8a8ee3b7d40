import { ConfigError } from '@ostore/shared/config';
import { loadSchedulerConfig } from './scheduler.config';

describe(loadSchedulerConfig.name, () => {
  const sut = loadSchedulerConfig;

  it('defaults: Kafka queues, group `scheduler`, AWS days, the gateway-style block store', () => {
    const config = sut({});
    expect(config.queue).toEqual({ backend: 'kafka', group: 'scheduler', sessionTimeoutMs: 30000, drainTimeoutMs: 10000 });
    expect(config.scheduler).toMatchObject({ ratePerPartition: 500, concurrency: 48, batchSize: 100, debugDaySeconds: undefined });
    expect(config.blocks).toMatchObject({ store: 'fs', dir: '.stack/blocks', coldDir: '.stack/blocks-cold' });
    expect(config.management.port).toBe(9102);
  });

  it('reads the switches', () => {
    const config = sut({
      QUEUE_BACKEND: 'cassandra',
      SCHEDULER_RATE_PER_PARTITION: '0',
      LIFECYCLE_DEBUG_DAY_SECONDS: '10',
      BLOCK_STORE: 'cassandra',
      SHUTDOWN_TIMEOUT_MS: '8000',
    });
    expect(config.queue.backend).toBe('cassandra');
    expect(config.queue.drainTimeoutMs).toBe(1500);
    expect(config.scheduler.ratePerPartition).toBeUndefined();
    expect(config.scheduler.debugDaySeconds).toBe(10);
    expect(config.blocks.store).toBe('cassandra');
  });

  it('names every bad variable at once', () => {
    let err: unknown;
    try {
      sut({ QUEUE_BACKEND: 'redis', SCHEDULER_CONCURRENCY: '0', LIFECYCLE_DEBUG_DAY_SECONDS: '-1' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toMatch(/QUEUE_BACKEND/);
    expect(problems).toMatch(/SCHEDULER_CONCURRENCY/);
    expect(problems).toMatch(/LIFECYCLE_DEBUG_DAY_SECONDS/);
  });

  it('publishes usage deltas to Kafka by default, batched; USAGE_DELTAS=off turns them off', () => {
    expect(sut({}).usage).toEqual({ mode: 'kafka', batchMax: 500, lingerMs: 100, bufferMax: 50_000, sourceHost: expect.any(String) });
    expect(sut({}).usage.sourceHost).not.toBe('');
    expect(sut({ USAGE_DELTAS: 'off', USAGE_BATCH_MAX: '50', USAGE_LINGER_MS: '0', USAGE_BUFFER_MAX: '1000' }).usage).toMatchObject({
      mode: 'off',
      batchMax: 50,
      lingerMs: 0,
      bufferMax: 1000,
    });
    expect(() => sut({ USAGE_DELTAS: 'stdout', USAGE_BATCH_MAX: '0' })).toThrow(/USAGE_DELTAS[\s\S]*USAGE_BATCH_MAX|USAGE_BATCH_MAX[\s\S]*USAGE_DELTAS/);
  });
});
