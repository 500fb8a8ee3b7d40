import type { Client } from 'cassandra-driver';
import { findLocalHost, primaryRanges, ringOf } from '@ostore/lifecycle/scan';
import { LocalRing } from './folder-cleanup.cycle';

/** This node's primary spans, and how many nodes are the primary replica of some range (whose filters must all be complete). */
export async function localRingOf(client: Client, keyspace: string, addresses: readonly string[]): Promise<LocalRing> {
  const ring = await ringOf(client, keyspace);
  const host = findLocalHost(client, addresses);
  return { spans: primaryRanges(ring, host.address), expectedHosts: new Set(ring.map((r) => r.replicas[0])).size };
}
