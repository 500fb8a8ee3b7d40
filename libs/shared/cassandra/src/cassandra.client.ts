import { auth, Client, policies, types } from 'cassandra-driver';
import { CassandraOptions, consistencyOf, securityOptions } from './cassandra.options';
import { coalesceDriverWrites } from './write-coalescing';

export type Params = unknown[] | Record<string, unknown>;
export interface QueryOptions {
  consistency?: number;
  serialConsistency?: number;
  fetchSize?: number;
  pageState?: string | Buffer;
  timestamp?: number | types.Long;
  isIdempotent?: boolean;
  autoPage?: boolean;
  routingKey?: Buffer | Buffer[];
  host?: unknown;
}

/** Builds a driver client; used by the module and by tools that need a session outside Nest. */
export function createDriverClient(
  options: CassandraOptions,
  withKeyspace = true,
  extra: Partial<ConstructorParameters<typeof Client>[0]> = {},
): Client {
  if (options.coalesceWrites !== false) coalesceDriverWrites();
  return new Client({
    contactPoints: options.contactPoints,
    localDataCenter: options.localDataCenter,
    keyspace: withKeyspace ? options.keyspace : undefined,
    protocolOptions: { port: options.port },
    applicationName: options.applicationName,
    authProvider: undefined as unknown as auth.AuthProvider,
    ...securityOptions(options),
    socketOptions: { readTimeout: options.requestTimeoutMs, connectTimeout: 5000 },
    policies: {
      reconnection: new policies.reconnection.ConstantReconnectionPolicy(1000),
    },
    queryOptions: {
      consistency: consistencyOf(options.consistency),
      serialConsistency: consistencyOf(options.serialConsistency),
      prepare: true,
    },
    pooling: {
      heartBeatInterval: 5000,
      ...(options.connectionsPerHost
        ? { coreConnectionsPerHost: { [types.distance.local]: options.connectionsPerHost, [types.distance.remote]: 1 } }
        : {}),
    },
    ...extra,
  });
}

/**
 * One Cassandra session per app. Every statement is prepared (the driver caches prepared
 * statements by query text), and consistency comes from configuration unless a call overrides it.
 */
export class CassandraClient {
  readonly driver: Client;

  constructor(
    readonly options: CassandraOptions,
    driver?: Client,
  ) {
    this.driver = driver ?? createDriverClient(options);
  }

  get keyspace(): string {
    return this.options.keyspace;
  }

  connect(): Promise<void> {
    return this.driver.connect();
  }

  execute(cql: string, params?: Params, options: QueryOptions = {}): Promise<types.ResultSet> {
    return this.driver.execute(cql, params as never, { prepare: true, ...options } as never);
  }

  batch(
    queries: { query: string; params?: Params }[],
    options: QueryOptions & { logged?: boolean } = {},
  ): Promise<types.ResultSet> {
    return this.driver.batch(queries as never, { prepare: true, logged: true, ...options } as never);
  }

  /** Streams all rows of a query page by page, never holding more than one page. */
  async *rows(cql: string, params?: Params, options: QueryOptions = {}): AsyncGenerator<types.Row> {
    let pageState: string | undefined;
    do {
      const rs = await this.execute(cql, params, { fetchSize: 1000, ...options, pageState, autoPage: false });
      for (const row of rs.rows) yield row;
      pageState = rs.pageState ?? undefined;
    } while (pageState);
  }

  /** True when a trivial query succeeds now. */
  async ping(): Promise<boolean> {
    await this.driver.execute('SELECT release_version FROM system.local', [], {
      prepare: false,
      consistency: types.consistencies.one,
      isIdempotent: true,
    });
    return true;
  }

  shutdown(): Promise<void> {
    return this.driver.shutdown();
  }
}
