// Test environment of the integration specs: when a spec file is done (after all its hooks, so after
// its apps have stopped), drop the keyspaces it created. A long run then never piles up hundreds of
// tables in the test Cassandra, each of which costs heap.
const { TestEnvironment } = require('jest-environment-node');
const cassandra = require('cassandra-driver');

class OStoreIntegrationEnvironment extends TestEnvironment {
  async teardown() {
    const keyspaces = this.global.__ostoreKeyspaces ?? [];
    if (keyspaces.length > 0 && process.env.OSTORE_TEST_KEEP_KEYSPACES !== '1' && process.env.OSTORE_TEST_CASSANDRA_HOST) {
      const client = new cassandra.Client({
        contactPoints: [process.env.OSTORE_TEST_CASSANDRA_HOST],
        protocolOptions: { port: Number(process.env.OSTORE_TEST_CASSANDRA_PORT) },
        localDataCenter: 'datacenter1',
      });
      try {
        for (const ks of keyspaces) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`).catch(() => undefined);
      } catch {
        // the global teardown drops whatever is left
      } finally {
        await client.shutdown().catch(() => undefined);
      }
    }
    await super.teardown();
  }
}

module.exports = OStoreIntegrationEnvironment;
