import { readFileSync } from 'fs';
import { KafkaConfig, SASLOptions } from 'kafkajs';

/** SASL mechanisms the apps support (those kafkajs implements without a plugin). */
export const saslMechanisms = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof saslMechanisms)[number];

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  /** Metastore cluster name: topics are `s3-<cluster>-<queue>`. */
  cluster: string;
  /** Partitions of topics created on demand (the seed's default 3, up to 24 on busy clusters). */
  partitions: number;
  replicationFactor: number;
  /** SASL authentication (most managed Kafka services require it, over TLS). */
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
  /** TLS to the brokers; `caFile` is a PEM bundle (the system CAs when absent). */
  tls?: { caFile?: string };
}

/** The kafkajs `ssl` and `sasl` settings for `options` (empty when both are off). */
export function kafkaSecurity(options: KafkaOptions): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { sasl, tls } = options;
  return {
    ...(tls
      ? { ssl: tls.caFile ? { ca: [readFileSync(tls.caFile, 'utf8')], rejectUnauthorized: true } : true }
      : {}),
    ...(sasl ? { sasl: { ...sasl } as SASLOptions } : {}),
  };
}
