// @ts-check
'use strict';
/**
 * Stacks of test runs. Each `npm test` runs on a stack of its own, in a *slot*: a block of ports
 * that `npm start`'s stack (9042/7000/9092/9093) and the ephemeral range (32768+) never use, a
 * stack dir of its own, and a machine-wide lock held by the test run's process, so that two
 * concurrent runs (from one checkout or several) never share one.
 *
 * Slot k (0..19) has base port 30000 + 100 k:
 *   base+42 CQL, base+70 Cassandra storage, base+92 Kafka, base+93 Kafka controller (on 127.0.0.1);
 *   base+43 / base+71 are the three-node cluster spec's CQL / storage ports (on 127.0.0.11-13),
 *   base+94 / base+95 the Kafka ports of its config (its Kafka is never started).
 * Stack dir: <repo>/.stack-test/slot<k>. Lock: <tmpdir>/ostore-test-slots/slot<k>.
 */

const os = require('os');
const path = require('path');
const fs = require('fs');
const { REPO_ROOT, configFromEnv } = require('./config.cjs');
const { tryLock } = require('./lock.cjs');
const { stackProcesses } = require('./processes.cjs');
const { pidAlive, portFree, readPid } = require('./util.cjs');

const SLOTS = 20;
const FIRST_BASE = 30000;
const HOST = '127.0.0.1';

/**
 * A claimed slot: the options that address its stack, and the release of its lock.
 * @typedef {object} TestSlot
 * @property {number} slot
 * @property {string} stackDir
 * @property {import('./config.cjs').StackOptions & { stackDir: string, cassandraHost: string, cassandraPort: number,
 *   cassandraStoragePort: number, kafkaHost: string, kafkaPort: number, kafkaControllerPort: number }} options
 * @property {boolean} reused a stack left running in this slot dir (OSTORE_TEST_LEAVE_STACK=1, or a killed run) is used again
 * @property {() => void} release gives the slot back (the stack itself is not touched)
 */

/**
 * The stack options of slot `k`.
 * @param {number} k
 * @param {string} root
 */
function slotOptions(k, root) {
  const base = FIRST_BASE + 100 * k;
  return {
    stackDir: path.join(root, '.stack-test', `slot${k}`),
    cassandraHost: HOST,
    cassandraPort: base + 42,
    cassandraStoragePort: base + 70,
    kafkaHost: HOST,
    kafkaPort: base + 92,
    kafkaControllerPort: base + 93,
  };
}

/**
 * Does any server started from this stack dir run?
 * @param {string} stackDir
 */
function runsHere(stackDir) {
  return stackProcesses(configFromEnv({ stackDir })).some((e) => pidAlive(e.pid, e.marker));
}

/**
 * Claims the first slot whose lock is free and whose ports are free (or held by the stack of this
 * checkout's slot dir, which the run then uses again). Slots with such a stack are preferred.
 * @param {{ root?: string, lockRoot?: string, log?: (msg: string) => void }} [opts]
 * @returns {Promise<TestSlot>}
 */
async function claimTestSlot(opts = {}) {
  const root = opts.root ?? REPO_ROOT;
  const lockRoot = opts.lockRoot ?? path.join(os.tmpdir(), 'ostore-test-slots');
  fs.mkdirSync(lockRoot, { recursive: true });
  const all = Array.from({ length: SLOTS }, (_, k) => k);
  const withStack = all.filter((k) => runsHere(slotOptions(k, root).stackDir));
  /** @type {string[]} */
  const skipped = [];
  for (const k of [...withStack, ...all.filter((k) => !withStack.includes(k))]) {
    const options = slotOptions(k, root);
    const lock = path.join(lockRoot, `slot${k}`);
    if (!tryLock(lock)) {
      skipped.push(`slot${k}: used by pid ${readPid(path.join(lock, 'pid'))}`);
      continue;
    }
    const release = () => {
      if (readPid(path.join(lock, 'pid')) === process.pid) fs.rmSync(lock, { recursive: true, force: true });
    };
    const reused = withStack.includes(k);
    const ports = [options.cassandraPort, options.cassandraStoragePort, options.kafkaPort, options.kafkaControllerPort];
    const busy = [];
    if (!reused) for (const p of ports) if (!(await portFree(HOST, p))) busy.push(p);
    if (busy.length) {
      release();
      skipped.push(`slot${k}: ports ${busy.join(', ')} in use`);
      continue;
    }
    if (skipped.length && opts.log) opts.log(`skipped ${skipped.join('; ')}`);
    return { slot: k, stackDir: options.stackDir, options, reused, release };
  }
  throw new Error(`no free test stack slot (ports ${FIRST_BASE}-${FIRST_BASE + 100 * SLOTS - 1}):\n  ${skipped.join('\n  ')}`);
}

module.exports = { claimTestSlot, slotOptions };
