import { z } from 'zod';
import { ConfigError, envVar, parseEnv } from './env';

describe(parseEnv.name, () => {
  const schema = z.object({
    PORT: envVar.port(9000),
    CLUSTER: envVar.requiredString(),
    BROKERS: envVar.list('127.0.0.1:9092'),
    DEBUG: envVar.bool(false),
  });

  it('applies defaults and coerces values', () => {
    const sut = parseEnv(schema, { CLUSTER: 'dev', DEBUG: 'yes' });
    expect(sut).toEqual({ PORT: 9000, CLUSTER: 'dev', BROKERS: ['127.0.0.1:9092'], DEBUG: true });
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      parseEnv(schema, { PORT: 'ninety', DEBUG: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('PORT');
    expect(message).toContain('"ninety"');
    expect(message).toContain('CLUSTER');
    expect(message).toContain('missing');
    expect(message).toContain('DEBUG');
    expect((error as ConfigError).problems).toHaveLength(3);
  });
});
