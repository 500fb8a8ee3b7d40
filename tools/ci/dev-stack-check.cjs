// @ts-check
'use strict';
/**
 * CI proof that `npm test` neither uses nor disturbs a development stack (issue 16):
 *   record  start (or find) the stack on the default ports, as `npm start` would, and write what
 *           runs there (pids of the CQL and Kafka listeners, Kafka cluster id) to a state file
 *   verify  the same processes still answer a CQL query and a Kafka metadata request, and neither
 *           a topic nor a keyspace of the test run named OSTORE_TEST_RUN_NAME appeared there
 *   release stop that stack again if `record` started it
 * Usage: node tools/ci/dev-stack-check.cjs record|verify|release [state file, default tmp/dev-stack.json]
 */

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const stack = require('../stack/index.cjs');

const DEFAULTS = {
  stackDir: path.resolve(__dirname, '../../.stack'),
  cassandraHost: '127.0.0.1',
  cassandraPort: 9042,
  cassandraStoragePort: 7000,
  kafkaHost: '127.0.0.1',
  kafkaPort: 9092,
  kafkaControllerPort: 9093,
};

/**
 * @typedef {{ startedByUs: boolean, recordedAt: number, cassandraPid: number | null, kafkaPid: number | null, kafkaClusterId: string | undefined, cassandraRelease: string | undefined }} DevStackState
 */

/**
 * The pid of the process listening on 127.0.0.1:port (or null if it cannot be told).
 * @param {number} port
 */
function listenerPid(port) {
  const r = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(r.stdout ?? '');
  return m ? Number(m[1]) : null;
}

/** What runs on the default ports now. */
async function observe() {
  const cql = await stack.probeCassandra(DEFAULTS.cassandraHost, DEFAULTS.cassandraPort);
  const kafka = await stack.probeKafka(DEFAULTS.kafkaHost, DEFAULTS.kafkaPort);
  return {
    cql,
    kafka,
    cassandraPid: listenerPid(DEFAULTS.cassandraPort),
    kafkaPid: listenerPid(DEFAULTS.kafkaPort),
  };
}

/**
 * Topics and keyspaces of the test run `run` in the development stack (there should be none).
 * @param {string} run
 */
async function traces(run) {
  const { Kafka, logLevel } = require('kafkajs');
  const admin = new Kafka({ clientId: 'ostore-ci-check', brokers: [`${DEFAULTS.kafkaHost}:${DEFAULTS.kafkaPort}`], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  /** @type {string[]} */
  let topics;
  try {
    topics = (await admin.listTopics()).filter((t) => t.startsWith(`s3-${run}-`));
  } finally {
    await admin.disconnect();
  }
  const cassandra = require('cassandra-driver');
  const client = new cassandra.Client({ contactPoints: [DEFAULTS.cassandraHost], protocolOptions: { port: DEFAULTS.cassandraPort }, localDataCenter: 'datacenter1' });
  try {
    const rs = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces');
    const keyspaces = rs.rows.map((r) => String(r.get('keyspace_name'))).filter((k) => k.startsWith(`${run}_`));
    return [...topics.map((t) => `topic ${t}`), ...keyspaces.map((k) => `keyspace ${k}`)];
  } finally {
    await client.shutdown();
  }
}

/** @param {string} file */
async function record(file) {
  const info = await stack.ensureStackUp({ ...DEFAULTS, log: (m) => process.stdout.write(`[dev-stack] ${m}\n`) });
  const now = await observe();
  /** @type {DevStackState} */
  const state = {
    startedByUs: info.startedByUs,
    recordedAt: Date.now(),
    cassandraPid: now.cassandraPid,
    kafkaPid: now.kafkaPid,
    kafkaClusterId: now.kafka.clusterId,
    cassandraRelease: now.cql.release,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(state, null, 2) + '\n');
  process.stdout.write(`[dev-stack] on the default ports: Cassandra ${state.cassandraRelease} (pid ${state.cassandraPid}) on 9042, Kafka ${state.kafkaClusterId} (pid ${state.kafkaPid}) on 9092\n`);
  return 0;
}

/** @param {string} file */
async function verify(file) {
  /** @type {DevStackState} */
  const before = JSON.parse(fs.readFileSync(file, 'utf8'));
  const now = await observe();
  const problems = [];
  if (!now.cql.ok) problems.push(`Cassandra on 9042 does not answer CQL: ${now.cql.error}`);
  if (!now.kafka.ok) problems.push(`Kafka on 9092 does not answer a metadata request: ${now.kafka.error}`);
  if (now.cassandraPid !== before.cassandraPid) problems.push(`the Cassandra on 9042 is another process: pid ${before.cassandraPid} before, ${now.cassandraPid} now`);
  if (now.kafkaPid !== before.kafkaPid) problems.push(`the Kafka on 9092 is another process: pid ${before.kafkaPid} before, ${now.kafkaPid} now`);
  if (now.kafka.ok && now.kafka.clusterId !== before.kafkaClusterId) problems.push(`Kafka cluster id changed: ${before.kafkaClusterId} -> ${now.kafka.clusterId}`);
  const run = process.env.OSTORE_TEST_RUN_NAME;
  if (run && now.kafka.ok && now.cql.ok) {
    const used = await traces(run);
    if (used.length) problems.push(`test run ${run} used the development stack: ${used.slice(0, 5).join(', ')}${used.length > 5 ? ', ...' : ''}`);
  }
  if (problems.length) {
    process.stdout.write(`[dev-stack] DISTURBED:\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  process.stdout.write(`[dev-stack] untouched: the same Cassandra (pid ${now.cassandraPid}) and Kafka (pid ${now.kafkaPid}, cluster ${now.kafka.clusterId}) answer on 9042 and 9092, and ${run ? `test run ${run} left no topic or keyspace there` : 'no test run was named (OSTORE_TEST_RUN_NAME)'}\n`);
  return 0;
}

/** @param {string} file */
async function release(file) {
  /** @type {DevStackState} */
  const before = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (before.startedByUs) await stack.stackDown({ ...DEFAULTS, quiet: true });
  return 0;
}

const [cmd, file = path.resolve(__dirname, '../../tmp/dev-stack.json')] = process.argv.slice(2);
/** @type {Record<string, (file: string) => Promise<number>>} */
const commands = { record, verify, release };
const fn = cmd ? commands[cmd] : undefined;
if (!fn) {
  process.stderr.write('usage: node tools/ci/dev-stack-check.cjs record|verify|release [state file]\n');
  process.exit(2);
}
fn(file).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`[dev-stack] ERROR: ${e instanceof Error ? e.message : e}\n`);
    process.exit(1);
  },
);
