// @ts-check
'use strict';
/** Readiness: one CQL round trip per Cassandra node, a Kafka describeCluster, and waiting for both. */

const { LOCAL_DC, cassandraPaths, kafkaPaths, nodeAddress } = require('./config.cjs');
const { cassandraPid, kafkaPid } = require('./processes.cjs');
const { errorLine, fmtSecs, pidAlive, portOpen, sleep, tail } = require('./util.cjs');

/** @typedef {import('./config.cjs').StackConfig} StackConfig */
/** @typedef {{ ok: boolean | null, error?: string, release?: string, peers?: number, clusterId?: string, brokers?: number }} ProbeResult */
/**
 * Something to wait for: its probe, and the process and logs to blame when it dies.
 * @typedef {{ name: string, probe: () => Promise<ProbeResult>, pid: number | null, marker: string, logFile: string, stdoutLog: string }} ProbeItem
 */

/**
 * @param {string} name
 * @returns {any}
 */
function requireDep(name) {
  try {
    return require(name);
  } catch (e) {
    throw new Error(`tools/stack needs the '${name}' package (npm install at the repo root): ${errorLine(e)}`);
  }
}

/**
 * One CQL round trip against exactly host:port.
 * @param {string} host
 * @param {number} port
 * @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<ProbeResult>}
 */
async function probeCassandra(host, port, { timeoutMs = 4000 } = {}) {
  if (!(await portOpen(host, port, 1000))) return { ok: false, error: 'port closed' };
  /** @type {typeof import('cassandra-driver')} */
  const cassandra = requireDep('cassandra-driver');
  const lb = cassandra.policies.loadBalancing;
  const client = new cassandra.Client({
    contactPoints: [`${host}:${port}`],
    localDataCenter: LOCAL_DC,
    protocolOptions: { port },
    isMetadataSyncEnabled: false,
    socketOptions: { connectTimeout: timeoutMs, readTimeout: timeoutMs },
    policies: {
      loadBalancing: new lb.AllowListPolicy(new lb.DCAwareRoundRobinPolicy(LOCAL_DC), [`${host}:${port}`]),
      reconnection: new cassandra.policies.reconnection.ConstantReconnectionPolicy(60000),
    },
    pooling: { warmup: false },
  });
  try {
    await client.connect();
    const rs = await client.execute('SELECT release_version FROM system.local');
    const peers = await client.execute('SELECT peer FROM system.peers_v2');
    return { ok: true, release: rs.first().get('release_version'), peers: peers.rowLength };
  } catch (e) {
    return { ok: false, error: errorLine(e) };
  } finally {
    await client.shutdown().catch(() => {});
  }
}

/**
 * One Kafka metadata request (describeCluster) against exactly host:port.
 * @param {string} host
 * @param {number} port
 * @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<ProbeResult>}
 */
async function probeKafka(host, port, { timeoutMs = 4000 } = {}) {
  if (!(await portOpen(host, port, 1000))) return { ok: false, error: 'port closed' };
  /** @type {typeof import('kafkajs')} */
  const { Kafka, logLevel } = requireDep('kafkajs');
  const kafka = new Kafka({
    clientId: 'ostore-stack-probe',
    brokers: [`${host}:${port}`],
    logLevel: logLevel.NOTHING,
    connectionTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    const d = await admin.describeCluster();
    return { ok: true, clusterId: d.clusterId, brokers: d.brokers.length };
  } catch (e) {
    return { ok: false, error: errorLine(e) };
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * Wait until every item's probe passes, or fail at the deadline (or when an item's process dies).
 * @param {ProbeItem[]} items
 * @param {number} deadlineMs
 * @param {(msg: string) => void} log
 * @returns {Promise<Record<string, ProbeResult>>}
 */
async function waitReady(items, deadlineMs, log) {
  const t0 = Date.now();
  const pending = new Map(items.map((it) => [it.name, it]));
  /** @type {Map<string, string | undefined>} */
  const last = new Map();
  let lastReport = Date.now();
  /** @type {Record<string, ProbeResult>} */
  const results = {};
  while (pending.size) {
    await Promise.all(
      [...pending.values()].map(async (it) => {
        const r = await it.probe();
        if (r.ok) {
          pending.delete(it.name);
          results[it.name] = r;
          log(`${it.name} ready after ${fmtSecs(Date.now() - t0)}`);
          return;
        }
        last.set(it.name, r.error);
        if (it.pid && !pidAlive(it.pid, it.marker)) {
          throw new Error(`${it.name} (pid ${it.pid}) exited during start-up. Last log lines of ${it.logFile}:\n${tail(it.logFile, 30)}\n-- ${it.stdoutLog}:\n${tail(it.stdoutLog, 15)}`);
        }
      }),
    );
    if (!pending.size) break;
    if (Date.now() > deadlineMs) {
      const why = [...pending.values()].map((it) => `${it.name}: ${last.get(it.name)} (log ${it.logFile})`).join('\n  ');
      throw new Error(`stack not ready before the deadline:\n  ${why}`);
    }
    if (Date.now() - lastReport >= 5000) {
      log(`waiting (${fmtSecs(Date.now() - t0)}): ${[...pending.keys()].map((n) => `${n} [${last.get(n)}]`).join(', ')}`);
      lastReport = Date.now();
    }
    await sleep(500);
  }
  return results;
}

/**
 * Ready = CQL answers on the node and it knows all its peers.
 * @param {StackConfig} cfg
 * @param {number[]} nodes
 * @param {{ peers?: boolean }} [options] peers: false = CQL answering is enough (the seed before the others start)
 * @returns {ProbeItem[]}
 */
function cassandraProbeItems(cfg, nodes, { peers = true } = {}) {
  return nodes.map((i) => {
    const p = cassandraPaths(cfg, i);
    const host = nodeAddress(cfg, i);
    const want = peers ? cfg.cassandra.nodes - 1 : 0;
    return {
      name: `cassandra node${i}`,
      pid: cassandraPid(cfg, i),
      marker: p.marker,
      logFile: p.systemLog,
      stdoutLog: p.stdoutLog,
      probe: async () => {
        const r = await probeCassandra(host, cfg.cassandra.port);
        if (r.ok && (r.peers ?? 0) < want) return { ok: false, error: `sees ${r.peers}/${want} peers` };
        return r;
      },
    };
  });
}

/**
 * @param {StackConfig} cfg
 * @returns {ProbeItem}
 */
function kafkaProbeItem(cfg) {
  const p = kafkaPaths(cfg);
  return {
    name: 'kafka',
    pid: kafkaPid(cfg),
    marker: p.marker,
    logFile: p.serverLog,
    stdoutLog: p.stdoutLog,
    probe: () => probeKafka(cfg.kafka.host, cfg.kafka.port),
  };
}

module.exports = { probeCassandra, probeKafka, waitReady, cassandraProbeItems, kafkaProbeItem };
