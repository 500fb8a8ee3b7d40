// @ts-check
// Starts this test run's own Cassandra + Kafka stack (never `npm start`'s: other ports, another
// stack dir; see tools/stack/test-slots.cjs), names this run's keyspaces, and prints the ports.
const { randomBytes } = require('crypto');
const os = require('os');
const path = require('path');
const stack = require('../stack/index.cjs');
const { runState, say, warn } = require('./run-state.js');

/** @typedef {import('./run-state.js').RunStack} RunStack */

/**
 * If Jest ends without its global teardown (Ctrl-C, a crash, a forced exit), the stack's JVMs,
 * which outlive their parent, get SIGTERM and the slot is given back.
 * @param {RunStack} run
 */
function stopStackOnExit(run) {
  const leave = process.env.OSTORE_TEST_LEAVE_STACK === '1';
  const cleanup = () => {
    if (run.stopped) return;
    run.stopped = true;
    const pids = leave ? [] : stack.signalStackSync(run.slot.options);
    run.slot.release();
    if (pids.length) warn(`the run ended before its global teardown; sent SIGTERM to its stack (pids ${pids.join(', ')})`);
  };
  process.once('exit', cleanup);
  for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.once(sig, () => {
      cleanup();
      process.exit(128 + os.constants.signals[sig]);
    });
  }
}

/**
 * The environment every spec, app process and stack command of this run inherits.
 * @param {import('../stack/test-slots.cjs').TestSlot} slot
 * @param {Awaited<ReturnType<typeof stack.ensureStackUp>>} info
 */
function exportEnv(slot, info) {
  const o = slot.options;
  Object.assign(process.env, {
    OSTORE_TEST_RUN: runName(),
    OSTORE_TEST_CASSANDRA_HOST: info.cassandra.host,
    OSTORE_TEST_CASSANDRA_PORT: String(info.cassandra.port),
    OSTORE_TEST_KAFKA_BROKERS: info.kafka.brokers.join(','),
    OSTORE_TEST_STACK: JSON.stringify(o),
    // `node tools/stack/stack.mjs <command>` and the bench scripts run by specs act on this stack
    OSTORE_STACK_DIR: o.stackDir,
    OSTORE_CASSANDRA_HOST: o.cassandraHost,
    OSTORE_CASSANDRA_PORT: String(o.cassandraPort),
    OSTORE_CASSANDRA_STORAGE_PORT: String(o.cassandraStoragePort),
    OSTORE_KAFKA_HOST: o.kafkaHost,
    OSTORE_KAFKA_PORT: String(o.kafkaPort),
    OSTORE_KAFKA_CONTROLLER_PORT: String(o.kafkaControllerPort),
  });
}

/** The prefix of this run's keyspaces and topics: OSTORE_TEST_RUN_NAME (e.g. from CI) or a fresh one. */
function runName() {
  const given = process.env.OSTORE_TEST_RUN_NAME;
  if (given && !/^t[0-9a-z]{3,20}$/.test(given)) throw new Error(`OSTORE_TEST_RUN_NAME=${given}: t, then 3 to 20 of [0-9a-z]`);
  return given || `t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
}

module.exports = async () => {
  // Several projects share this setup; the first call does the work.
  if (runState().stack) return;
  const started = Date.now();
  const slot = await stack.claimTestSlot({ log: say });
  /** @type {RunStack} */
  const run = { slot, stopped: false };
  runState().stack = run;
  stopStackOnExit(run);
  const opts = { ...slot.options, exclusive: true, quiet: true };
  /** @type {Awaited<ReturnType<typeof stack.ensureStackUp>>} */
  let info;
  try {
    // a stopped stack left in the slot dir by an earlier run: start from empty data
    if (!slot.reused) await stack.stackDown({ ...opts, purge: true });
    info = await stack.ensureStackUp(opts);
  } catch (e) {
    run.stopped = true;
    await stack.stackDown({ ...opts, purge: false }).catch(() => undefined);
    slot.release();
    throw e;
  }
  exportEnv(slot, info);
  const o = slot.options;
  process.stdout.write('\n');
  say(
    `this run's own stack: Cassandra ${o.cassandraHost}:${o.cassandraPort} (storage ${o.cassandraStoragePort}), ` +
      `Kafka ${o.kafkaHost}:${o.kafkaPort} (controller ${o.kafkaControllerPort}), dir ${path.relative(process.cwd(), o.stackDir) || o.stackDir}; ` +
      `${info.startedByUs ? 'started' : 'reused'} in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
      `(a stack on the default ports, e.g. npm start's, is neither used nor touched)`,
  );
};
