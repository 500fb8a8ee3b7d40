import { Client, policies, types } from 'cassandra-driver';
import { CassandraOptions, createDriverClient } from '@ostore/shared/cassandra';
import { addressesOf } from './local-ring';
import { PinnedHostPolicy } from './pinned-host.policy';

/**
 * A driver session for the local scan: its only contact point is the scanner's node (so the
 * driver names that host by the configured address, even `127.0.0.1` in a sidecar), its
 * load-balancing policy sends every request to that node and opens no pool to the others, and
 * its default consistency is ONE. The app's ordinary session (token-aware, LOCAL_QUORUM) stays
 * for everything that is not the scan: bucket settings, tags, scan positions.
 */
export async function createLocalScanClient(
  options: CassandraOptions,
  nodeAddress: string,
): Promise<{ client: Client; policy: PinnedHostPolicy }> {
  const policy = new PinnedHostPolicy(await addressesOf(nodeAddress));
  const client = createDriverClient(
    { ...options, contactPoints: [nodeAddress], applicationName: `${options.applicationName}-local-scan` },
    true,
    {
      policies: {
        loadBalancing: policy,
        reconnection: new policies.reconnection.ConstantReconnectionPolicy(1000),
      },
      queryOptions: { consistency: types.consistencies.one, prepare: true },
    },
  );
  return { client, policy };
}
