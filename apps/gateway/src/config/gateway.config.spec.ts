import { ConfigError } from '@ostore/shared/config';
import { loadGatewayConfig } from './gateway.config';

describe(loadGatewayConfig.name, () => {
  const sut = loadGatewayConfig;

  it('publishes usage deltas to Kafka by default, from this host', () => {
    expect(sut({}).usage).toEqual({ mode: 'kafka', batchMax: 500, lingerMs: 100, bufferMax: 50_000, sourceHost: expect.any(String) });
    expect(sut({}).usage.sourceHost).not.toBe('');
  });

  it('reads the usage switches; a buffer smaller than a batch is raised to one batch', () => {
    expect(sut({ USAGE_DELTAS: 'off' }).usage.mode).toBe('off');
    expect(sut({ USAGE_BATCH_MAX: '200', USAGE_LINGER_MS: '5', USAGE_BUFFER_MAX: '10' }).usage).toMatchObject({ batchMax: 200, lingerMs: 5, bufferMax: 200 });
  });

  it('names every bad usage variable at once', () => {
    let err: unknown;
    try {
      sut({ USAGE_DELTAS: 'cassandra', USAGE_LINGER_MS: '-1', USAGE_BUFFER_MAX: 'many' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toMatch(/USAGE_DELTAS/);
    expect(problems).toMatch(/USAGE_LINGER_MS/);
    expect(problems).toMatch(/USAGE_BUFFER_MAX/);
  });
});
