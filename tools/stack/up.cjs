// @ts-check
'use strict';
/** `up`: start whatever part of a stack is not running and wait until it is ready. */

const fs = require('fs');
const { configFromEnv, effectiveConfig, endpoints, nodeAddress, nodeList, savedConfig, stackFile } = require('./config.cjs');
const { findJava17 } = require('./java.cjs');
const { resolveJars } = require('./jars.cjs');
const { withLock } = require('./lock.cjs');
const { cassandraPid, ensureFree, kafkaPid, startCassandraNode, startKafkaProcess } = require('./processes.cjs');
const { cassandraProbeItems, kafkaProbeItem, probeCassandra, probeKafka, waitReady } = require('./probes.cjs');
const { fmtSecs, mkdirp, portOpen } = require('./util.cjs');

/** @typedef {import('./config.cjs').StackConfig} StackConfig */
/** @typedef {import('./config.cjs').StackOptions} StackOptions */
/**
 * @typedef {import('./config.cjs').Endpoints & {
 *   startedByUs: boolean,
 *   started: { cassandraNodes: number[], kafka: boolean },
 *   stackDir: string,
 * }} StackInfo
 */

/**
 * Where progress goes: opts.log, nowhere with opts.quiet, else stderr.
 * @param {StackOptions} [opts]
 * @returns {(msg: string) => void}
 */
function defaultLogger(opts) {
  if (opts && opts.log) return opts.log;
  if (opts && opts.quiet) return () => {};
  return (msg) => process.stderr.write(`[stack] ${msg}\n`);
}

/** @param {StackConfig} cfg */
function anyCassandraRunning(cfg) {
  return nodeList(cfg).some((i) => cassandraPid(cfg, i));
}

/**
 * The config to start with: the wanted one, unless this stack dir already runs with another.
 * @param {StackOptions} opts
 * @param {StackConfig} wanted
 * @param {(msg: string) => void} log
 */
function configToStart(opts, wanted, log) {
  const saved = savedConfig(wanted.stackDir);
  if (!saved) return wanted;
  const asSaved = effectiveConfig(opts);
  if (!anyCassandraRunning(asSaved) && !kafkaPid(asSaved)) return wanted;
  /** @type {string[]} */
  const diff = [];
  for (const k of /** @type {const} */ (['port', 'storagePort', 'nodes', 'host'])) if (wanted.cassandra[k] !== asSaved.cassandra[k]) diff.push(`cassandra.${k}`);
  for (const k of /** @type {const} */ (['port', 'controllerPort', 'host'])) if (wanted.kafka[k] !== asSaved.kafka[k]) diff.push(`kafka.${k}`);
  if (diff.length) log(`note: stack in ${asSaved.stackDir} already runs with different ${diff.join(', ')}; keeping the running config (run down first to change it)`);
  return asSaved;
}

/**
 * What must be started: the servers of this stack dir that do not run. A server of *another*
 * stack dir answering on the same endpoint is used and reported, unless opts.exclusive.
 * @param {StackConfig} cfg
 * @param {StackOptions} opts
 */
async function plan(cfg, opts) {
  /** @type {number[]} */
  const cassStart = [];
  /** @type {string[]} */
  const external = [];
  const notOurs = opts.exclusive ? ' (this stack uses only servers started from its own stack dir)' : '';
  if (opts.only !== 'kafka') {
    for (const i of nodeList(cfg)) {
      if (cassandraPid(cfg, i)) continue;
      const host = nodeAddress(cfg, i);
      if (await portOpen(host, cfg.cassandra.port, 500)) {
        const r = await probeCassandra(host, cfg.cassandra.port);
        if (r.ok && !opts.exclusive) {
          external.push(`cassandra node${i}`);
          continue;
        }
        throw new Error(`${host}:${cfg.cassandra.port} is in use but is not a Cassandra of this stack dir (${r.ok ? `a Cassandra ${r.release}` : r.error})${notOurs}`);
      }
      await ensureFree(host, cfg.cassandra.storagePort, `cassandra node${i} storage port`);
      cassStart.push(i);
    }
  }
  let kafkaStart = false;
  if (opts.only !== 'cassandra' && !kafkaPid(cfg)) {
    if (await portOpen(cfg.kafka.host, cfg.kafka.port, 500)) {
      const r = await probeKafka(cfg.kafka.host, cfg.kafka.port);
      if (!r.ok || opts.exclusive) throw new Error(`${cfg.kafka.host}:${cfg.kafka.port} is in use but is not a Kafka of this stack dir (${r.ok ? `a Kafka, cluster ${r.clusterId}` : r.error})${notOurs}`);
      external.push('kafka');
    } else {
      await ensureFree(cfg.kafka.host, cfg.kafka.controllerPort, 'kafka controller port');
      kafkaStart = true;
    }
  }
  return { cassStart, kafkaStart, external };
}

/**
 * Resolves the jars, records the config in stack.json and spawns the servers: Kafka and Cassandra
 * in parallel; extra Cassandra nodes once the seed node answers.
 * @param {StackConfig} cfg
 * @param {number[]} cassStart
 * @param {boolean} kafkaStart
 * @param {number} deadline
 * @param {(msg: string) => void} log
 */
async function spawnServers(cfg, cassStart, kafkaStart, deadline, log) {
  findJava17();
  // Sequential on purpose: two Maven processes sharing ~/.m2 can corrupt it.
  const kafkaJars = kafkaStart ? resolveJars(cfg, 'kafka', log) : '';
  const cassandraJars = cassStart.length ? resolveJars(cfg, 'cassandra', log) : '';
  mkdirp(cfg.stackDir);
  fs.writeFileSync(
    stackFile(cfg.stackDir),
    JSON.stringify({ cassandra: cfg.cassandra, kafka: cfg.kafka, jarCache: cfg.jarCache, java: findJava17() }, null, 2) + '\n',
  );
  if (kafkaStart) startKafkaProcess(cfg, kafkaJars, log);
  const seedFirst = cassStart.includes(1) && cassStart.length > 1;
  for (const i of seedFirst ? [1] : cassStart) startCassandraNode(cfg, i, cassandraJars, log);
  if (seedFirst) {
    await waitReady(cassandraProbeItems(cfg, [1], { peers: false }), deadline, log);
    for (const i of cassStart.filter((n) => n !== 1)) startCassandraNode(cfg, i, cassandraJars, log);
  }
}

/**
 * Start whatever part of the stack is not running, wait for readiness.
 * @param {StackOptions} [opts]
 * @returns {Promise<StackInfo>}
 */
async function ensureStackUp(opts = {}) {
  const log = defaultLogger(opts);
  const wanted = configFromEnv(opts);
  return withLock(wanted, async () => {
    const cfg = configToStart(opts, wanted, log);
    const deadline = Date.now() + cfg.timeoutSec * 1000;
    const t0 = Date.now();
    const { cassStart, kafkaStart, external } = await plan(cfg, opts);
    if (external.length) log(`using already running server(s) not started from ${cfg.stackDir}: ${external.join(', ')}`);
    const startedByUs = cassStart.length > 0 || kafkaStart;
    if (startedByUs) await spawnServers(cfg, cassStart, kafkaStart, deadline, log);

    const items = [];
    if (opts.only !== 'kafka') items.push(...cassandraProbeItems(cfg, nodeList(cfg)).filter((it) => !external.includes(it.name)));
    if (opts.only !== 'cassandra' && !external.includes('kafka')) items.push(kafkaProbeItem(cfg));
    try {
      await waitReady(items, deadline, log);
    } catch (e) {
      if (e instanceof Error) e.message += `\n(processes were left running for inspection; stop them with: OSTORE_STACK_DIR=${cfg.stackDir} node tools/stack/stack.mjs down)`;
      throw e;
    }
    if (startedByUs) log(`stack ready in ${fmtSecs(Date.now() - t0)}`);
    return { ...endpoints(cfg), startedByUs, started: { cassandraNodes: cassStart, kafka: kafkaStart }, stackDir: cfg.stackDir };
  }, log);
}

module.exports = { ensureStackUp, defaultLogger };
