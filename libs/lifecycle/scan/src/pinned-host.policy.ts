import { Client, EmptyCallback, ExecutionOptions, Host, HostMap, policies, types } from 'cassandra-driver';

/** The IP part of a driver host address (`10.0.0.5:9042`, `[::1]:9042`). */
export function ipOf(address: string): string {
  const bracketed = /^\[(.*)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1];
  const parts = address.split(':');
  return parts.length === 2 ? parts[0] : address;
}

/**
 * A load-balancing policy that sends every request to one node and ignores all others (no
 * connection pool is opened to them). A local scan must read its node's data through that node,
 * never silently through another one: when the node is down the query plan holds only a down
 * host and the request fails (NoHostAvailableError), the pass stops and resumes later.
 *
 * The node is matched by IP: the driver names the host it reached through a contact point by that
 * contact point's address (so `127.0.0.1` in a sidecar works), and the peers by their RPC address.
 */
export class PinnedHostPolicy extends policies.loadBalancing.LoadBalancingPolicy {
  private hosts?: HostMap;

  constructor(readonly addresses: readonly string[]) {
    super();
    if (addresses.length === 0) throw new Error('PinnedHostPolicy needs the address of its node');
  }

  override init(_client: Client, hosts: HostMap, callback: EmptyCallback): void {
    this.hosts = hosts;
    (callback as () => void)();
  }

  override getDistance(host: Host): types.distance {
    return this.matches(host) ? types.distance.local : types.distance.ignored;
  }

  override newQueryPlan(
    _keyspace: string,
    _options: ExecutionOptions,
    callback: (error: Error, iterator: Iterator<Host>) => void,
  ): void {
    const host = this.pinned();
    callback(null as unknown as Error, (host ? [host] : [])[Symbol.iterator]());
  }

  /** The pinned node's host, once the driver knows it. */
  pinned(): Host | undefined {
    for (const host of this.hosts?.values() ?? []) if (this.matches(host)) return host;
    return undefined;
  }

  matches(host: Host): boolean {
    return this.addresses.includes(ipOf(host.address));
  }

  override getOptions(): Map<string, object> {
    return new Map<string, object>([['addresses', [...this.addresses]]]);
  }
}
