// Starts the local Cassandra + Kafka stack unless it already runs, and names this run's keyspaces.
const { randomBytes } = require('crypto');

module.exports = async () => {
  // Several projects share this setup; the first call does the work.
  if (process.env.OSTORE_TEST_RUN) return;
  const stack = require('../stack/index.cjs');
  const started = Date.now();
  const info = await stack.ensureStackUp({ quiet: true });
  globalThis.__OSTORE_STACK_STARTED_BY_TESTS__ = info.startedByUs;
  process.env.OSTORE_TEST_CASSANDRA_HOST = info.cassandra.host;
  process.env.OSTORE_TEST_CASSANDRA_PORT = String(info.cassandra.port);
  process.env.OSTORE_TEST_KAFKA_BROKERS = info.kafka.brokers.join(',');
  process.env.OSTORE_TEST_RUN = `t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  process.stdout.write(`\n[stack] ${info.startedByUs ? 'started' : 'already running'} in ${Date.now() - started} ms\n`);
};
