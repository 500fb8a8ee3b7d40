import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { auth } from 'cassandra-driver';
import { ConfigError } from '@ostore/shared/config';
import { securityOptions } from '@ostore/shared/cassandra';
import { kafkaSecurity } from '@ostore/queue/data-access';
import { loadMigrateConfig } from './migrate.config';

const dir = mkdtempSync(join(tmpdir(), 'ostore-security-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('Cassandra authentication and TLS settings', () => {
  it('are off by default: no credentials, no TLS, no auth provider', () => {
    const { cassandra } = loadMigrateConfig({});
    expect(cassandra.credentials).toBeUndefined();
    expect(cassandra.tls).toBeUndefined();
    expect(securityOptions(cassandra)).toEqual({});
  });

  it('a user and a password give the driver a PasswordAuthenticator provider', () => {
    const { cassandra } = loadMigrateConfig({ CASSANDRA_USERNAME: 'ostore', CASSANDRA_PASSWORD: 's3cret' });
    expect(cassandra.credentials).toEqual({ username: 'ostore', password: 's3cret' });
    expect(securityOptions(cassandra).authProvider).toBeInstanceOf(auth.PlainTextAuthProvider);
  });

  it('reads the password from CASSANDRA_PASSWORD_FILE without its trailing newline', () => {
    const { cassandra } = loadMigrateConfig({
      CASSANDRA_USERNAME: 'ostore',
      CASSANDRA_PASSWORD_FILE: file('cass-pw', 'from-file\n'),
    });
    expect(cassandra.credentials?.password).toBe('from-file');
  });

  it('TLS with a CA file verifies the nodes against that CA', () => {
    const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const { cassandra } = loadMigrateConfig({ CASSANDRA_TLS: 'true', CASSANDRA_TLS_CA_FILE: ca });
    const ssl = securityOptions(cassandra).sslOptions!;
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(String((ssl.ca as Buffer[])[0])).toContain('BEGIN CERTIFICATE');
    expect(securityOptions(loadMigrateConfig({ CASSANDRA_TLS: 'true' }).cassandra).sslOptions).toEqual({
      rejectUnauthorized: true,
    });
  });

  it.each([
    [{ CASSANDRA_USERNAME: 'ostore' }, /CASSANDRA_PASSWORD: required/],
    [{ CASSANDRA_PASSWORD: 'x' }, /CASSANDRA_PASSWORD: set only together with CASSANDRA_USERNAME/],
    [{ CASSANDRA_USERNAME: 'u', CASSANDRA_PASSWORD: 'x', CASSANDRA_PASSWORD_FILE: '/x' }, /not both/],
    [{ CASSANDRA_USERNAME: 'u', CASSANDRA_PASSWORD_FILE: join(dir, 'missing') }, /cannot read/],
    [{ CASSANDRA_USERNAME: 'u', CASSANDRA_PASSWORD_FILE: file('empty', '\n') }, /is empty/],
    [{ CASSANDRA_TLS_CA_FILE: '/ca.pem' }, /only with CASSANDRA_TLS=true/],
  ])('rejects %j', (env, message) => {
    expect(() => loadMigrateConfig(env)).toThrow(ConfigError);
    expect(() => loadMigrateConfig(env)).toThrow(message);
  });
});

describe('Kafka SASL and TLS settings', () => {
  it('are off by default: kafkajs gets neither ssl nor sasl', () => {
    const { kafka } = loadMigrateConfig({});
    expect(kafkaSecurity(kafka)).toEqual({});
  });

  it('SCRAM over TLS with the system CAs, as managed Kafka services want', () => {
    const { kafka } = loadMigrateConfig({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'ostore',
      KAFKA_SASL_PASSWORD_FILE: file('kafka-pw', 'pw\n'),
      KAFKA_TLS: 'true',
    });
    expect(kafkaSecurity(kafka)).toEqual({
      ssl: true,
      sasl: { mechanism: 'scram-sha-512', username: 'ostore', password: 'pw' },
    });
  });

  it('TLS with a private CA', () => {
    const ca = file('kafka-ca.pem', 'PEM');
    const { kafka } = loadMigrateConfig({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: ca });
    expect(kafkaSecurity(kafka)).toEqual({ ssl: { ca: ['PEM'], rejectUnauthorized: true } });
  });

  it.each([
    [{ KAFKA_SASL_MECHANISM: 'plain' }, /KAFKA_SASL_MECHANISM: set together/],
    [{ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }, /KAFKA_SASL_MECHANISM: set together/],
    [{ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u' }, /KAFKA_SASL_PASSWORD: required/],
    [
      { KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      /KAFKA_SASL_MECHANISM/,
    ],
    [{ KAFKA_TLS_CA_FILE: '/ca.pem' }, /only with KAFKA_TLS=true/],
  ])('rejects %j', (env, message) => {
    expect(() => loadMigrateConfig(env)).toThrow(ConfigError);
    expect(() => loadMigrateConfig(env)).toThrow(message);
  });
});
