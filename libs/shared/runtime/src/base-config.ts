import { z, envVar } from '@ostore/shared/config';
import { consistencyNames, CassandraOptions } from '@ostore/shared/cassandra';
import { KafkaOptions, saslMechanisms } from '@ostore/queue/data-access';
import { parseReplication, Replication } from '@ostore/metastore/schema';
import { cassandraSecurity, kafkaSecurityOptions } from './config/connection-security';

/** Environment variables every app reads (each app's config/ extends this schema). */
export const baseEnvSchema = z.object({
  OSTORE_CLUSTER: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and dashes')
    .default('local'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  MANAGEMENT_HOST: envVar.string('0.0.0.0'),
  CASSANDRA_CONTACT_POINTS: envVar.list('127.0.0.1'),
  CASSANDRA_PORT: envVar.port(9042),
  CASSANDRA_LOCAL_DC: envVar.string('datacenter1'),
  CASSANDRA_KEYSPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,47}$/, 'must be a lowercase identifier of at most 48 characters')
    .default('ostore'),
  CASSANDRA_CONSISTENCY: z.enum(consistencyNames).default('localQuorum'),
  CASSANDRA_SERIAL_CONSISTENCY: z.enum(consistencyNames).default('localSerial'),
  CASSANDRA_REQUEST_TIMEOUT_MS: envVar.int(12000, 100),
  /** Connections to each node of the local data center (one is a single socket and I/O thread on the node). */
  CASSANDRA_CONNECTIONS_PER_HOST: envVar.int(1, 1, 16),
  /** Requests of one event-loop turn in one socket write (see @ostore/shared/cassandra write-coalescing). */
  CASSANDRA_COALESCE_WRITES: envVar.bool(true),
  CASSANDRA_REPLICATION: z
    .string()
    .default('SimpleStrategy:1')
    .superRefine((v, ctx) => {
      try {
        parseReplication(v);
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
      }
    }),
  /** PasswordAuthenticator user; the password from CASSANDRA_PASSWORD or the file CASSANDRA_PASSWORD_FILE. */
  CASSANDRA_USERNAME: z.string().min(1).optional(),
  CASSANDRA_PASSWORD: z.string().min(1).optional(),
  CASSANDRA_PASSWORD_FILE: z.string().min(1).optional(),
  CASSANDRA_TLS: envVar.bool(false),
  CASSANDRA_TLS_CA_FILE: z.string().min(1).optional(),
  MIGRATE_ON_START: envVar.bool(true),
  KAFKA_BROKERS: envVar.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PARTITIONS: envVar.int(3, 1, 1024),
  KAFKA_REPLICATION_FACTOR: envVar.int(1, 1, 16),
  /** SASL on the broker connections (off when unset); the password as for Cassandra. */
  KAFKA_SASL_MECHANISM: z.enum(saslMechanisms).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD_FILE: z.string().min(1).optional(),
  KAFKA_TLS: envVar.bool(false),
  KAFKA_TLS_CA_FILE: z.string().min(1).optional(),
  SHUTDOWN_TIMEOUT_MS: envVar.int(25000, 0),
});

export type BaseEnv = z.infer<typeof baseEnvSchema>;

/** The typed, nested configuration shared by all apps. */
export interface BaseConfig {
  app: string;
  cluster: string;
  logLevel: string;
  management: { host: string; port: number };
  cassandra: CassandraOptions;
  replication: Replication;
  migrateOnStart: boolean;
  kafka: KafkaOptions;
  shutdownTimeoutMs: number;
}

export function toBaseConfig(app: string, env: BaseEnv, managementPort: number): BaseConfig {
  return {
    app,
    cluster: env.OSTORE_CLUSTER,
    logLevel: env.LOG_LEVEL,
    management: { host: env.MANAGEMENT_HOST, port: managementPort },
    cassandra: {
      contactPoints: env.CASSANDRA_CONTACT_POINTS,
      port: env.CASSANDRA_PORT,
      localDataCenter: env.CASSANDRA_LOCAL_DC,
      keyspace: env.CASSANDRA_KEYSPACE,
      consistency: env.CASSANDRA_CONSISTENCY,
      serialConsistency: env.CASSANDRA_SERIAL_CONSISTENCY,
      requestTimeoutMs: env.CASSANDRA_REQUEST_TIMEOUT_MS,
      connectionsPerHost: env.CASSANDRA_CONNECTIONS_PER_HOST,
      coalesceWrites: env.CASSANDRA_COALESCE_WRITES,
      applicationName: `ostore-${app}`,
      ...cassandraSecurity(env),
    },
    replication: parseReplication(env.CASSANDRA_REPLICATION),
    migrateOnStart: env.MIGRATE_ON_START,
    kafka: {
      brokers: env.KAFKA_BROKERS,
      clientId: `ostore-${app}`,
      cluster: env.OSTORE_CLUSTER,
      partitions: env.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: env.KAFKA_REPLICATION_FACTOR,
      ...kafkaSecurityOptions(env),
    },
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
  };
}
