import { readFileSync } from 'fs';
import { ConfigError } from '@ostore/shared/config';
import { CassandraOptions } from '@ostore/shared/cassandra';
import { KafkaOptions, SaslMechanism } from '@ostore/queue/data-access';

/** The credential and TLS variables of the base schema (see base-config.ts). */
export interface SecurityEnv {
  CASSANDRA_USERNAME?: string;
  CASSANDRA_PASSWORD?: string;
  CASSANDRA_PASSWORD_FILE?: string;
  CASSANDRA_TLS: boolean;
  CASSANDRA_TLS_CA_FILE?: string;
  KAFKA_SASL_MECHANISM?: SaslMechanism;
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
  KAFKA_SASL_PASSWORD_FILE?: string;
  KAFKA_TLS: boolean;
  KAFKA_TLS_CA_FILE?: string;
}

/**
 * A secret given either inline (`<NAME>`) or as a mounted file (`<NAME>_FILE`, trailing newline
 * dropped), never both; undefined when neither is set.
 */
export function secretValue(
  name: string,
  value: string | undefined,
  file: string | undefined,
): string | undefined {
  if (value !== undefined && file !== undefined)
    throw new ConfigError([`${name}: set ${name} or ${name}_FILE, not both`]);
  if (file === undefined) return value;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([`${name}_FILE: cannot read ${file} (${(e as Error).message})`]);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (!secret) throw new ConfigError([`${name}_FILE: ${file} is empty`]);
  return secret;
}

function credentials(
  user: [string, string | undefined],
  password: [string, string | undefined, string | undefined],
): { username: string; password: string } | undefined {
  const secret = secretValue(...password);
  if (user[1] === undefined) {
    if (secret !== undefined) throw new ConfigError([`${password[0]}: set only together with ${user[0]}`]);
    return undefined;
  }
  if (secret === undefined)
    throw new ConfigError([`${password[0]}: required with ${user[0]} (or ${password[0]}_FILE)`]);
  return { username: user[1], password: secret };
}

/** Cassandra authentication and TLS from the environment (both off unless configured). */
export function cassandraSecurity(env: SecurityEnv): Pick<CassandraOptions, 'credentials' | 'tls'> {
  const creds = credentials(
    ['CASSANDRA_USERNAME', env.CASSANDRA_USERNAME],
    ['CASSANDRA_PASSWORD', env.CASSANDRA_PASSWORD, env.CASSANDRA_PASSWORD_FILE],
  );
  if (env.CASSANDRA_TLS_CA_FILE && !env.CASSANDRA_TLS)
    throw new ConfigError(['CASSANDRA_TLS_CA_FILE: set only with CASSANDRA_TLS=true']);
  return {
    ...(creds ? { credentials: creds } : {}),
    ...(env.CASSANDRA_TLS ? { tls: { caFile: env.CASSANDRA_TLS_CA_FILE } } : {}),
  };
}

/** Kafka SASL and TLS from the environment (both off unless configured). */
export function kafkaSecurityOptions(env: SecurityEnv): Pick<KafkaOptions, 'sasl' | 'tls'> {
  const creds = credentials(
    ['KAFKA_SASL_USERNAME', env.KAFKA_SASL_USERNAME],
    ['KAFKA_SASL_PASSWORD', env.KAFKA_SASL_PASSWORD, env.KAFKA_SASL_PASSWORD_FILE],
  );
  if ((creds === undefined) !== (env.KAFKA_SASL_MECHANISM === undefined))
    throw new ConfigError(['KAFKA_SASL_MECHANISM: set together with KAFKA_SASL_USERNAME and its password']);
  if (env.KAFKA_TLS_CA_FILE && !env.KAFKA_TLS)
    throw new ConfigError(['KAFKA_TLS_CA_FILE: set only with KAFKA_TLS=true']);
  return {
    ...(creds && env.KAFKA_SASL_MECHANISM ? { sasl: { mechanism: env.KAFKA_SASL_MECHANISM, ...creds } } : {}),
    ...(env.KAFKA_TLS ? { tls: { caFile: env.KAFKA_TLS_CA_FILE } } : {}),
  };
}
