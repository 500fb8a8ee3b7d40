import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { usageSpoolDir } from '@ostore/queue/data-access';
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

  it('gives each gateway worker its own usage spool directory, and the same one to its replacement', () => {
    const dir = (env: Record<string, string>) => usageSpoolDir('gateway', sut(env).usage);
    const base = { USAGE_SPOOL_DIR: '/var/lib/ostore/usage-spool' };
    expect(dir(base)).toBe('/var/lib/ostore/usage-spool');
    expect([0, 1, 1].map((i) => dir({ ...base, GATEWAY_WORKER_INDEX: String(i) }))).toEqual([
      '/var/lib/ostore/usage-spool/worker-0',
      '/var/lib/ostore/usage-spool/worker-1',
      '/var/lib/ostore/usage-spool/worker-1',
    ]);
    const [first, second] = [0, 1].map((i) => dir({ GATEWAY_WORKER_INDEX: String(i) }));
    expect(first).not.toBe(second);
    expect(first.startsWith(join(tmpdir(), 'ostore-usage-spool', 'gateway-'))).toBe(true);
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

  it('reads the admin token from ADMIN_TOKEN_FILE, and serves the admin API on 127.0.0.1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
    writeFileSync(join(dir, 'token'), 'a-token-from-a-file-0000\n');
    expect(sut({ ADMIN_TOKEN_FILE: join(dir, 'token'), ADMIN_PORT: '9104' }).admin).toEqual({ token: 'a-token-from-a-file-0000', host: '127.0.0.1', port: 9104 });
    expect(() => sut({ ADMIN_TOKEN_FILE: join(dir, 'missing') })).toThrow(/ADMIN_TOKEN_FILE: cannot read/);
    expect(() => sut({ ADMIN_TOKEN: 'a-token-given-twice-000', ADMIN_TOKEN_FILE: join(dir, 'token') })).toThrow(/exclude each other/);
    expect(() => sut({ ADMIN_PORT: '9100' })).toThrow(/MANAGEMENT_PORT/);
  });

  it.each([
    ['the placeholder deploy/ once shipped', 'REPLACE-ME-with-a-long-random-token'],
    ['a change-me value', 'changeme-changeme-changeme'],
    ['an example value', 'example-admin-token-0123456789'],
    ['one repeated character', '0000000000000000000000'],
    ['too few different characters', 'abababababababababab'],
    ['a short token', 'f3a9c1d2'],
  ])('refuses %s as the admin token, from ADMIN_TOKEN and from ADMIN_TOKEN_FILE', (_label, token) => {
    expect(() => sut({ ADMIN_TOKEN: token })).toThrow(/ADMIN_TOKEN/);
    const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
    writeFileSync(join(dir, 'token'), `${token}\n`);
    expect(() => sut({ ADMIN_TOKEN_FILE: join(dir, 'token') })).toThrow(/ADMIN_TOKEN_FILE/);
  });

  it('accepts a generated admin token, served by default on its own listener at 127.0.0.1:9104', () => {
    const token = '3f9c0e41b7d25a86c1e0f4d39b2a7c58e6d1f0a4b3c2d9e8f7a6b5c4d3e2f1a0';
    expect(sut({ ADMIN_TOKEN: token }).admin).toEqual({ token, host: '127.0.0.1', port: 9104 });
  });

  it('reads blocks 4 MiB at a time unless told otherwise, within 64 KiB - 16 MiB', () => {
    expect(sut({}).blocks.readSize).toBe(4 * 1024 * 1024);
    expect(sut({ BLOCK_READ_SIZE_BYTES: '1048576' }).blocks.readSize).toBe(1024 * 1024);
    for (const bad of ['0', '65535', String(16 * 1024 * 1024 + 1), '1MiB'])
      expect(() => sut({ BLOCK_READ_SIZE_BYTES: bad })).toThrow(/BLOCK_READ_SIZE_BYTES/);
  });

  it('leaves replaced null versions to the scan unless told to converge at write', () => {
    expect(sut({}).s3.nullConvergence).toBe('scan');
    expect(sut({ S3_NULL_CONVERGENCE: 'write' }).s3.nullConvergence).toBe('write');
    for (const bad of ['', 'WRITE', 'later'])
      expect(() => sut({ S3_NULL_CONVERGENCE: bad })).toThrow(/S3_NULL_CONVERGENCE/);
  });

  it('has short, configurable listener timeouts and a connection limit', () => {
    expect(sut({}).s3.listener).toEqual({ headersTimeoutMs: 20_000, requestIdleTimeoutMs: 20_000, keepAliveTimeoutMs: 65_000, maxConnections: 10_000 });
    expect(sut({ S3_REQUEST_IDLE_TIMEOUT_MS: '1500', S3_MAX_CONNECTIONS: '64' }).s3.listener).toMatchObject({ requestIdleTimeoutMs: 1500, maxConnections: 64 });
  });
});
