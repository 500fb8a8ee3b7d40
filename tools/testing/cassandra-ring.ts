import { Client, policies } from 'cassandra-driver';
import { join } from 'path';
import { sigkillAndWait, testStack, waitFor } from './stack-env';

/**
 * Control of the three-node Cassandra ring of `npm run test:cluster` (the one
 * apps/scanner/test/three-nodes.cluster-spec.ts uses: 127.0.0.11-13 in `<run's stack dir>-cluster`,
 * CQL and storage ports one above the run's, the run's own Kafka): start it, SIGKILL one node,
 * start it again, and ask another node's gossip whether it is back.
 */
const STACK_MODULE = join(__dirname, '../stack/index.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- tools/stack is CommonJS, loaded as it is (no build step)
const stack = require(STACK_MODULE);

export const RING_NODES = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
/** The ring's data center (Cassandra's default snitch). */
export const RING_DC = 'datacenter1';

export interface RingOptions {
  stackDir: string;
  cassandraNodes: number;
  cassandraHost: string;
  cassandraPort: number;
  cassandraStoragePort: number;
  cassandraHeap: string;
  kafkaPort: number;
  kafkaControllerPort: number;
  only: 'cassandra';
  exclusive: boolean;
  timeoutSec: number;
  quiet: boolean;
}

/** The ring's stack options, derived from this test run's own stack. */
export function ringOptions(heap = '1G'): RingOptions {
  const run = testStack();
  return {
    stackDir: `${run.stackDir}-cluster`,
    cassandraNodes: RING_NODES.length,
    cassandraHost: RING_NODES[0],
    cassandraPort: run.cassandraPort + 1,
    cassandraStoragePort: run.cassandraStoragePort + 1,
    cassandraHeap: heap,
    kafkaPort: run.kafkaPort + 2,
    kafkaControllerPort: run.kafkaControllerPort + 2,
    only: 'cassandra',
    // servers of another stack dir on these endpoints are an error, never used
    exclusive: true,
    timeoutSec: 400,
    quiet: true,
  };
}

/** One node's gossip state as another node sees it. */
export interface GossipState {
  generation: number;
  heartbeat: number;
  status: string;
}

/** The three-node ring: up, down, and the state of each node as another node sees it. */
export class CassandraRing {
  private constructor(
    readonly options: RingOptions,
    readonly startedByUs: boolean,
  ) {}

  /** Starts what of the ring is not running and waits until every node answers CQL and sees its peers. */
  static async up(options = ringOptions()): Promise<CassandraRing> {
    const info = await stack.ensureStackUp(options);
    return new CassandraRing(options, info.startedByUs);
  }

  /** Environment of an app that talks to the ring (every node a contact point). */
  appEnv(): Record<string, string> {
    return { CASSANDRA_CONTACT_POINTS: RING_NODES.join(','), CASSANDRA_PORT: String(this.options.cassandraPort), CASSANDRA_LOCAL_DC: RING_DC };
  }

  /** The pid of node `n` (1-based) from its pid file, undefined when it does not run. */
  async pid(n: number): Promise<number | undefined> {
    const s = await stack.status({ ...this.options, probe: false });
    return s.cassandra.nodes.find((x: { node: number }) => x.node === n)?.pid ?? undefined;
  }

  /** SIGKILL to node `n`: no drain, no flush; resolves once the process is gone. */
  async kill(n: number): Promise<void> {
    const pid = await this.pid(n);
    if (!pid) throw new Error(`cassandra node${n} does not run`);
    await sigkillAndWait(pid, `node${n}`);
  }

  /** Starts node `n` again with its saved configuration; resolves once it answers CQL and sees its peers. */
  async start(n: number): Promise<void> {
    await stack.startCassandra({ ...this.options, node: n });
  }

  /**
   * Gossip as node `from` sees it (`system_views.gossip_info`, read through that node only): the
   * generation (the start time a node announces; a restarted node announces a newer one), the
   * heartbeat and the status (`status_with_port`, else `status`) of each node, by address.
   */
  async gossip(from: number): Promise<Map<string, GossipState>> {
    const address = RING_NODES[from - 1];
    const endpoint = `${address}:${this.options.cassandraPort}`;
    const client = new Client({
      contactPoints: [address],
      protocolOptions: { port: this.options.cassandraPort },
      localDataCenter: RING_DC,
      policies: { loadBalancing: new policies.loadBalancing.AllowListPolicy(new policies.loadBalancing.DCAwareRoundRobinPolicy(RING_DC), [endpoint]) },
      socketOptions: { readTimeout: 30_000 },
    });
    try {
      const rs = await client.execute('SELECT address, generation, heartbeat, status, status_with_port FROM system_views.gossip_info');
      return new Map(
        rs.rows.map((r) => [String(r['address']), { generation: Number(r['generation']), heartbeat: Number(r['heartbeat']), status: String(r['status_with_port'] ?? r['status'] ?? '') }]),
      );
    } finally {
      await client.shutdown();
    }
  }

  /**
   * Waits (deadline `timeoutMs`) until node `from` gossips with the restarted node `n`: a
   * generation newer than `generationBefore` (the one before the kill), status NORMAL, and a
   * heartbeat that advances between two reads.
   */
  async untilRejoined(n: number, from: number, generationBefore: number, timeoutMs: number): Promise<GossipState> {
    const address = RING_NODES[n - 1];
    let last: GossipState | undefined;
    return waitFor(
      `node${n} (${address}) back in node${from}'s gossip`,
      async () => {
        const now = (await this.gossip(from)).get(address);
        const prev = last;
        last = now;
        if (!now || now.generation <= generationBefore || !now.status.startsWith('NORMAL')) return undefined;
        return prev && prev.generation === now.generation && now.heartbeat > prev.heartbeat ? now : undefined;
      },
      timeoutMs,
      1000,
    ).catch((e: Error) => {
      throw new Error(`${e.message} (last: ${JSON.stringify(last)}, generation before the kill ${generationBefore})`);
    });
  }

  /** Stops the ring if this run started it (unless OSTORE_KEEP_CLUSTER=1). */
  async down(): Promise<void> {
    if (this.startedByUs && process.env.OSTORE_KEEP_CLUSTER !== '1') await stack.stackDown({ stackDir: this.options.stackDir, quiet: true });
  }
}
