// @ts-check
'use strict';
/** Acting on a stack that was started: down (and purge), stop/start one server, status. */

const fs = require('fs');
const path = require('path');
const { cassandraPaths, effectiveConfig, endpoints, kafkaPaths, nodeAddress, nodeList } = require('./config.cjs');
const { resolveJars } = require('./jars.cjs');
const { memtablesOfYaml } = require('./server-config.cjs');
const { withLock } = require('./lock.cjs');
const { cassandraPid, ensureFree, kafkaPid, stackProcesses, startCassandraNode, startKafkaProcess, stopPids } = require('./processes.cjs');
const { cassandraProbeItems, kafkaProbeItem, probeCassandra, probeKafka, waitReady } = require('./probes.cjs');
const { defaultLogger } = require('./up.cjs');
const { fmtSecs } = require('./util.cjs');

/** @typedef {import('./config.cjs').StackConfig} StackConfig */
/** @typedef {import('./config.cjs').StackOptions} StackOptions */

/**
 * Stop everything started from this stack dir. opts.purge also deletes data + logs (opts.keepLogs: data only).
 * @param {StackOptions} [opts]
 * @returns {Promise<{ stopped: number }>}
 */
async function stackDown(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  if (!fs.existsSync(cfg.stackDir)) {
    log(`nothing to stop (${cfg.stackDir} does not exist)`);
    return { stopped: 0 };
  }
  return withLock(cfg, async () => {
    const stopped = await stopPids(stackProcesses(cfg), log);
    if (!stopped) log('nothing was running');
    if (opts.purge) purgeDir(cfg, log, !!opts.keepLogs);
    return { stopped };
  }, log);
}

/**
 * @param {StackConfig} cfg
 * @param {(msg: string) => void} log
 * @param {boolean} keepLogs
 */
function purgeDir(cfg, log, keepLogs) {
  if (keepLogs) {
    const dirs = [kafkaPaths(cfg).dir];
    const cdir = path.join(cfg.stackDir, 'cassandra');
    // node directories keep their logs; a loose file there (nodetool's logback config) just goes
    if (fs.existsSync(cdir))
      for (const d of fs.readdirSync(cdir)) {
        const p = path.join(cdir, d);
        if (fs.statSync(p).isDirectory()) dirs.push(p);
        else fs.rmSync(p, { force: true });
      }
    for (const dir of dirs) {
      if (!fs.existsSync(dir)) continue;
      for (const f of fs.readdirSync(dir)) if (f !== 'logs') fs.rmSync(path.join(dir, f), { recursive: true, force: true });
    }
    fs.rmSync(path.join(cfg.stackDir, 'stack.json'), { force: true });
    log(`purged data in ${cfg.stackDir} (logs kept)`);
    return;
  }
  for (const sub of ['cassandra', 'kafka', 'stack.json']) {
    fs.rmSync(path.join(cfg.stackDir, sub), { recursive: true, force: true });
  }
  // remove the dir itself if nothing else is in it
  try {
    const rest = fs.readdirSync(cfg.stackDir).filter((f) => f !== '.lock');
    if (!rest.length) fs.rmSync(cfg.stackDir, { recursive: true, force: true });
  } catch {
    /* already gone */
  }
  log(`purged data and logs in ${cfg.stackDir}`);
}

/**
 * Stop Cassandra (all nodes, or opts.node). Kafka keeps running.
 * @param {StackOptions} [opts]
 */
async function stopCassandra(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  return withLock(cfg, async () => ({ stopped: await stopPids(stackProcesses(cfg, { nodes: nodeList(cfg, opts.node), kafka: false }), log) }), log);
}

/**
 * Start Cassandra (all nodes, or opts.node) again with the saved config and wait for it.
 * @param {StackOptions} [opts]
 */
async function startCassandra(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  return withLock(cfg, async () => {
    const nodes = nodeList(cfg, opts.node);
    const toStart = nodes.filter((i) => !cassandraPid(cfg, i));
    const t0 = Date.now();
    if (toStart.length) {
      const jars = resolveJars(cfg, 'cassandra', log);
      for (const i of toStart) {
        await ensureFree(nodeAddress(cfg, i), cfg.cassandra.port, `cassandra node${i}`);
        startCassandraNode(cfg, i, jars, log);
      }
    }
    await waitReady(cassandraProbeItems(cfg, nodes), Date.now() + cfg.timeoutSec * 1000, log);
    if (toStart.length) log(`cassandra ready in ${fmtSecs(Date.now() - t0)}`);
    return { ...endpoints(cfg).cassandra, started: toStart.length };
  }, log);
}

/**
 * Stop Kafka. Cassandra keeps running.
 * @param {StackOptions} [opts]
 */
async function stopKafka(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  return withLock(cfg, async () => ({ stopped: await stopPids(stackProcesses(cfg, { nodes: [], kafka: true }), log) }), log);
}

/**
 * Start Kafka again with the saved config and wait for it.
 * @param {StackOptions} [opts]
 */
async function startKafka(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  return withLock(cfg, async () => {
    let started = 0;
    if (!kafkaPid(cfg)) {
      await ensureFree(cfg.kafka.host, cfg.kafka.port, 'kafka');
      startKafkaProcess(cfg, resolveJars(cfg, 'kafka', log), log);
      started = 1;
    }
    await waitReady([kafkaProbeItem(cfg)], Date.now() + cfg.timeoutSec * 1000, log);
    return { ...endpoints(cfg).kafka, started };
  }, log);
}

/**
 * Status of the stack in this stack dir. Never starts anything.
 * @param {StackOptions} [opts]
 */
async function status(opts = {}) {
  const cfg = effectiveConfig(opts);
  const probe = opts.probe !== false;
  const nodes = await Promise.all(
    nodeList(cfg).map(async (i) => {
      const p = cassandraPaths(cfg, i);
      const address = nodeAddress(cfg, i);
      const r = probe ? await probeCassandra(address, cfg.cassandra.port) : { ok: null, release: undefined, error: undefined };
      return {
        node: i,
        address,
        port: cfg.cassandra.port,
        storagePort: cfg.cassandra.storagePort,
        pid: cassandraPid(cfg, i),
        ready: r.ok,
        release: r.release,
        memtables: fs.existsSync(p.yaml) ? memtablesOfYaml(fs.readFileSync(p.yaml, 'utf8')) : undefined,
        error: r.ok ? undefined : r.error,
        dir: p.dir,
        log: p.systemLog,
      };
    }),
  );
  const kp = kafkaPaths(cfg);
  const kr = probe ? await probeKafka(cfg.kafka.host, cfg.kafka.port) : { ok: null, clusterId: undefined, error: undefined };
  const kafka = {
    host: cfg.kafka.host,
    port: cfg.kafka.port,
    controllerPort: cfg.kafka.controllerPort,
    pid: kafkaPid(cfg),
    ready: kr.ok,
    clusterId: kr.clusterId,
    error: kr.ok ? undefined : kr.error,
    dir: kp.dir,
    log: kp.serverLog,
  };
  // up = usable: every endpoint answers (servers of another stack dir on the same ports count,
  // as they do for ensureStackUp). Without probing, fall back to our own pids.
  const up = probe ? nodes.every((n) => n.ready) && kafka.ready === true : nodes.every((n) => n.pid) && !!kafka.pid;
  return {
    up,
    stackDir: cfg.stackDir,
    jarCache: cfg.jarCache,
    versions: { cassandra: cfg.cassandra.version, kafka: cfg.kafka.version },
    cassandra: { nodes },
    kafka,
    endpoints: endpoints(cfg),
  };
}

module.exports = { stackDown, stopCassandra, startCassandra, stopKafka, startKafka, status };
