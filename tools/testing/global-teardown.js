// Drops the keyspaces this run created; stops the stack only if this run started it.
const cassandra = require('cassandra-driver');

module.exports = async () => {
  if (globalThis.__OSTORE_TEARDOWN_DONE__) return;
  globalThis.__OSTORE_TEARDOWN_DONE__ = true;
  const run = process.env.OSTORE_TEST_RUN;
  if (run && process.env.OSTORE_TEST_KEEP_KEYSPACES !== '1') {
    const client = new cassandra.Client({
      contactPoints: [process.env.OSTORE_TEST_CASSANDRA_HOST],
      protocolOptions: { port: Number(process.env.OSTORE_TEST_CASSANDRA_PORT) },
      localDataCenter: 'datacenter1',
    });
    try {
      const rs = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces');
      for (const row of rs.rows) {
        if (row.keyspace_name.startsWith(`${run}_`)) await client.execute(`DROP KEYSPACE IF EXISTS ${row.keyspace_name}`);
      }
    } catch (e) {
      process.stderr.write(`[stack] could not drop test keyspaces: ${e.message}\n`);
    } finally {
      await client.shutdown();
    }
  }
  if (globalThis.__OSTORE_STACK_STARTED_BY_TESTS__ && process.env.OSTORE_TEST_LEAVE_STACK !== '1') {
    await require('../stack/index.cjs').stackDown();
  }
};
