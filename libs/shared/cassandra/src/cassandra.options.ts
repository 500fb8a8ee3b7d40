import { readFileSync } from 'fs';
import { auth, ClientOptions, types } from 'cassandra-driver';

export type ConsistencyName = keyof typeof types.consistencies;

export interface CassandraOptions {
  contactPoints: string[];
  /** Native-protocol port (9042 by default). */
  port: number;
  localDataCenter: string;
  /** Keyspace the session uses; migrations create it. */
  keyspace: string;
  /** Consistency of ordinary reads and writes. */
  consistency: ConsistencyName;
  /** Consistency of the Paxos phase of lightweight transactions. */
  serialConsistency: ConsistencyName;
  /** Per-request timeout. */
  requestTimeoutMs: number;
  /** Connections to each node of the local data center (default 1, the driver's). */
  connectionsPerHost?: number;
  /**
   * Requests issued within one event-loop turn leave in one socket write (default true; see
   * write-coalescing.ts). Process-wide: the first client created decides.
   */
  coalesceWrites?: boolean;
  /** Application name reported to Cassandra (visible in system_views.clients). */
  applicationName: string;
  /** PasswordAuthenticator credentials; none when the cluster has authentication off. */
  credentials?: { username: string; password: string };
  /** Client-to-node encryption; `caFile` is a PEM bundle (the system CAs when absent). */
  tls?: { caFile?: string };
}

/** The driver's authentication and TLS options for `options` (empty when both are off). */
export function securityOptions(
  options: CassandraOptions,
): Pick<ClientOptions, 'authProvider' | 'sslOptions'> {
  const { credentials, tls } = options;
  return {
    ...(credentials
      ? { authProvider: new auth.PlainTextAuthProvider(credentials.username, credentials.password) }
      : {}),
    ...(tls
      ? {
          sslOptions: { rejectUnauthorized: true, ...(tls.caFile ? { ca: [readFileSync(tls.caFile)] } : {}) },
        }
      : {}),
  };
}

export function consistencyOf(name: ConsistencyName): number {
  const value = types.consistencies[name];
  if (value === undefined) throw new Error(`unknown consistency level ${name}`);
  return value;
}

export const consistencyNames = Object.keys(types.consistencies) as [ConsistencyName, ...ConsistencyName[]];
