import { lookup } from 'dns/promises';
import { Client, Host, types } from 'cassandra-driver';
import { ipOf } from './pinned-host.policy';
import { primaryRanges, RingRange, TokenSpan } from './token-ring';

/** The node a scanner sits beside, as the driver knows it. */
export interface LocalNode {
  /** Driver address (`ip:port`). */
  readonly address: string;
  /** Cassandra's host id: stable across restarts and address changes; the scanner's default identity. */
  readonly hostId: string;
  readonly datacenter: string;
}

/** Every IP a configured node address may stand for (an IP stays itself; a name is resolved). */
export async function addressesOf(address: string): Promise<string[]> {
  const ip = ipOf(address);
  if (/^[\d.]+$/.test(ip) || ip.includes(':')) return [ip];
  return (await lookup(ip, { all: true })).map((a) => a.address);
}

/** Finds the host with one of `addresses` among the driver's hosts; a precise error otherwise. */
export function findLocalHost(client: Client, addresses: readonly string[]): Host {
  const hosts = client.hosts.values();
  const host = hosts.find((h) => addresses.includes(ipOf(h.address)));
  if (!host) {
    throw new Error(
      `the scanner's node ${addresses.join('/')} is not among the cluster's hosts (${hosts.map((h) => h.address).join(', ')}); set SCANNER_NODE_ADDRESS to the node's address as the driver reports it`,
    );
  }
  return host;
}

/**
 * The ring as the driver's metadata describes it for `keyspace`: every range with its replicas in
 * ring order (metadata.getTokenRanges + getReplicas; see primaryRanges for why the first replica
 * is the primary). Refreshes the keyspace first, so that a pass starts from the current
 * replication settings; the token map itself follows topology events.
 */
export async function ringOf(client: Client, keyspace: string): Promise<RingRange[]> {
  await client.metadata.refreshKeyspace(keyspace);
  const out: RingRange[] = [];
  for (const range of client.metadata.getTokenRanges()) {
    const replicas = client.metadata.getReplicas(keyspace, range);
    if (!replicas) throw new Error(`no replica metadata for keyspace ${keyspace}`);
    out.push({ start: murmur3(range.start), end: murmur3(range.end), replicas: replicas.map((h) => h.address) });
  }
  if (out.length === 0) throw new Error('the driver has no token map (metadata synchronisation disabled?)');
  return out;
}

/** The local node and the spans of the ring it is the primary replica of, in token order. */
export async function localScanSpans(
  client: Client,
  keyspace: string,
  addresses: readonly string[],
): Promise<{ node: LocalNode; spans: TokenSpan[] }> {
  const ring = await ringOf(client, keyspace);
  const host = findLocalHost(client, addresses);
  return {
    node: { address: host.address, hostId: String(host.hostId), datacenter: host.datacenter },
    spans: primaryRanges(ring, host.address),
  };
}

function murmur3(token: { getType(): { code: number }; getValue(): unknown }): bigint {
  if (token.getType().code !== types.dataTypes.bigint)
    throw new Error('the local scan supports Murmur3Partitioner only (tokens are 64-bit integers)');
  return BigInt(String(token.getValue()));
}
