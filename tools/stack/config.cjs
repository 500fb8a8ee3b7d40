// @ts-check
'use strict';
/**
 * What a stack is: its configuration (options, then env, then defaults), the config saved by the
 * last `up` in a stack dir, and where each server keeps its files.
 *
 * Layout of the stack dir (OSTORE_STACK_DIR, default <repo>/.stack):
 *   stack.json                      config of the last `up` (ports, nodes, versions)
 *   cassandra/node<N>/conf/         generated cassandra.yaml + logback.xml
 *   cassandra/node<N>/{data,commitlog,saved_caches,hints,cdc_raw}/
 *   cassandra/node<N>/logs/         system.log (logback), stdout.log (JVM)
 *   cassandra/node<N>/cassandra.pid
 *   kafka/conf/                     generated server.properties + log4j.properties
 *   kafka/data/                     KRaft log dir (formatted once)
 *   kafka/logs/                     server.log (log4j), stdout.log (JVM)
 *   kafka/kafka.pid, kafka/cluster.id
 */

const os = require('os');
const path = require('path');
const { envInt, envStr, readText } = require('./util.cjs');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_STACK_DIR = path.join(REPO_ROOT, '.stack');
const DEFAULT_CASSANDRA_VERSION = '5.0.9';
const DEFAULT_KAFKA_VERSION = '3.9.1';
const LOCAL_DC = 'datacenter1'; // what SimpleSnitch reports

/**
 * Options every stack function takes; env (OSTORE_*) fills what is not given.
 * @typedef {object} StackOptions
 * @property {string} [stackDir]
 * @property {string} [jarCache]
 * @property {number} [cassandraNodes]
 * @property {number} [numTokens]
 * @property {number} [timeoutSec]
 * @property {string} [cassandraVersion]
 * @property {string} [cassandraHost]
 * @property {number} [cassandraPort]
 * @property {number} [cassandraStoragePort]
 * @property {string} [cassandraHeap]
 * @property {string} [clusterName]
 * @property {string} [paxosVariant]
 * @property {string} [sstableFormat]
 * @property {string} [memtables] 'test' or 'default' (see configFromEnv)
 * @property {string} [kafkaVersion]
 * @property {string} [kafkaHost]
 * @property {number} [kafkaPort]
 * @property {number} [kafkaControllerPort]
 * @property {string} [kafkaHeap]
 * @property {boolean} [quiet] no progress output
 * @property {(msg: string) => void} [log] where progress goes (default stderr)
 * @property {'cassandra' | 'kafka'} [only] `ensureStackUp`: start one server only
 * @property {boolean} [exclusive] `ensureStackUp`: fail rather than use a server of another stack dir on the same endpoint
 * @property {number} [node] one Cassandra node (stop/start)
 * @property {boolean} [purge] `stackDown`: also delete data and logs
 * @property {boolean} [keepLogs] with `purge`: keep the logs directories
 * @property {boolean} [probe] `status`: probe the endpoints (default true)
 */

/**
 * @typedef {object} CassandraConfig
 * @property {string} version
 * @property {string} host
 * @property {number} port
 * @property {number} storagePort
 * @property {number} nodes
 * @property {number} numTokens
 * @property {string} heap
 * @property {string} clusterName
 * @property {string} paxosVariant
 * @property {string} sstableFormat
 * @property {'test' | 'default'} memtables
 */

/**
 * @typedef {object} KafkaConfig
 * @property {string} version
 * @property {string} host
 * @property {number} port
 * @property {number} controllerPort
 * @property {string} heap
 */

/**
 * @typedef {object} StackConfig
 * @property {string} stackDir
 * @property {string} jarCache
 * @property {CassandraConfig} cassandra
 * @property {KafkaConfig} kafka
 * @property {number} timeoutSec
 */

/**
 * Config from explicit options, then env, then defaults.
 * @param {StackOptions} [opts]
 * @returns {StackConfig}
 */
function configFromEnv(opts = {}) {
  const stackDir = path.resolve(opts.stackDir || envStr('OSTORE_STACK_DIR', DEFAULT_STACK_DIR));
  const nodes = opts.cassandraNodes ?? envInt('OSTORE_CASSANDRA_NODES', 1);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 9) throw new Error(`cassandra nodes must be 1..9, got ${nodes}`);
  return {
    stackDir,
    jarCache: path.resolve(
      opts.jarCache || envStr('OSTORE_JAR_CACHE', path.join(os.homedir(), '.cache', 'ostore', 'jars')),
    ),
    cassandra: {
      version: opts.cassandraVersion || envStr('OSTORE_CASSANDRA_VERSION', DEFAULT_CASSANDRA_VERSION),
      host: opts.cassandraHost || envStr('OSTORE_CASSANDRA_HOST', '127.0.0.1'),
      port: opts.cassandraPort ?? envInt('OSTORE_CASSANDRA_PORT', 9042),
      storagePort: opts.cassandraStoragePort ?? envInt('OSTORE_CASSANDRA_STORAGE_PORT', 7000),
      nodes,
      numTokens: opts.numTokens ?? envInt('OSTORE_CASSANDRA_NUM_TOKENS', 16),
      heap: opts.cassandraHeap || envStr('OSTORE_CASSANDRA_HEAP', '2G'),
      clusterName: opts.clusterName || envStr('OSTORE_CASSANDRA_CLUSTER_NAME', 'ostore-local'),
      // '' keeps Cassandra's default (v1); v2 = fewer round trips per LWT (a node restart applies it)
      paxosVariant: opts.paxosVariant || envStr('OSTORE_CASSANDRA_PAXOS_VARIANT', ''),
      // '' keeps Cassandra's default (big); bti = trie-indexed sstables, for the sstables a node
      // writes after its next start (compared in tools/bench/results/2026-12-05-sstable-format.md)
      sstableFormat: opts.sstableFormat || envStr('OSTORE_CASSANDRA_SSTABLE_FORMAT', ''),
      // 'test' (default): small on-heap memtables, for test runs that create hundreds of keyspaces;
      // 'default': Cassandra's own memtable settings, as the deployed image runs them (benches)
      memtables: memtablesFrom(opts.memtables || envStr('OSTORE_CASSANDRA_MEMTABLES', 'test')),
    },
    kafka: {
      version: opts.kafkaVersion || envStr('OSTORE_KAFKA_VERSION', DEFAULT_KAFKA_VERSION),
      host: opts.kafkaHost || envStr('OSTORE_KAFKA_HOST', '127.0.0.1'),
      port: opts.kafkaPort ?? envInt('OSTORE_KAFKA_PORT', 9092),
      controllerPort: opts.kafkaControllerPort ?? envInt('OSTORE_KAFKA_CONTROLLER_PORT', 9093),
      heap: opts.kafkaHeap || envStr('OSTORE_KAFKA_HEAP', '512m'),
    },
    timeoutSec: opts.timeoutSec ?? envInt('OSTORE_STACK_TIMEOUT', 180),
  };
}

/**
 * @param {string} value
 * @returns {'test' | 'default'}
 */
function memtablesFrom(value) {
  if (value === 'test' || value === 'default') return value;
  throw new Error(`OSTORE_CASSANDRA_MEMTABLES must be test or default, got ${JSON.stringify(value)}`);
}

/** @param {string} stackDir */
function stackFile(stackDir) {
  return path.join(stackDir, 'stack.json');
}

/**
 * What `up` writes into stack.json.
 * @typedef {{ cassandra?: Partial<CassandraConfig>, kafka?: Partial<KafkaConfig>, jarCache?: string, java?: string }} SavedConfig
 */

/**
 * Saved config of the last `up` in this stack dir (or null).
 * @param {string} stackDir
 * @returns {SavedConfig | null}
 */
function savedConfig(stackDir) {
  const t = readText(stackFile(stackDir));
  if (!t) return null;
  try {
    return JSON.parse(t);
  } catch {
    return null;
  }
}

/**
 * Only the keys of `obj` that are listed and defined.
 * @template {object} T
 * @param {T | undefined} obj
 * @param {(keyof T)[]} keys
 * @returns {Partial<T>}
 */
function pick(obj, keys) {
  /** @type {Partial<T>} */
  const out = {};
  for (const k of keys) if (obj && obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/**
 * Config to act on an existing stack: the saved one wins (it describes what runs).
 * @param {StackOptions} [opts]
 * @returns {StackConfig}
 */
function effectiveConfig(opts = {}) {
  const fromEnv = configFromEnv(opts);
  const saved = savedConfig(fromEnv.stackDir);
  if (!saved) return fromEnv;
  // Only what identifies the running servers is taken from the saved config; tunables
  // (heap, timeout) still come from options/env.
  return {
    ...fromEnv,
    cassandra: { ...fromEnv.cassandra, ...pick(saved.cassandra, ['version', 'host', 'port', 'storagePort', 'nodes', 'numTokens', 'clusterName']) },
    kafka: { ...fromEnv.kafka, ...pick(saved.kafka, ['version', 'host', 'port', 'controllerPort']) },
    jarCache: saved.jarCache || fromEnv.jarCache,
  };
}

/**
 * @param {string} ip
 * @param {number} offset
 */
function ipv4Offset(ip, offset) {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`OSTORE_CASSANDRA_HOST must be an IPv4 address for multi-node stacks, got ${ip}`);
  }
  const last = parts[3] + offset;
  if (last > 254) throw new Error(`cannot derive address #${offset + 1} from ${ip}`);
  return `${parts[0]}.${parts[1]}.${parts[2]}.${last}`;
}

/**
 * Address of Cassandra node `i` (1-based): node1 on the configured host, node N on its last octet + N-1.
 * @param {StackConfig} cfg
 * @param {number} i
 */
function nodeAddress(cfg, i) {
  return cfg.cassandra.nodes === 1 && i === 1 ? cfg.cassandra.host : ipv4Offset(cfg.cassandra.host, i - 1);
}

/**
 * All node numbers, or just `node` after checking it exists.
 * @param {StackConfig} cfg
 * @param {number | null} [node]
 * @returns {number[]}
 */
function nodeList(cfg, node) {
  if (node === undefined || node === null) return Array.from({ length: cfg.cassandra.nodes }, (_, k) => k + 1);
  if (!Number.isInteger(node) || node < 1 || node > cfg.cassandra.nodes) {
    throw new Error(`--node must be 1..${cfg.cassandra.nodes}`);
  }
  return [node];
}

/**
 * Files and dirs of Cassandra node `i`.
 * @param {StackConfig} cfg
 * @param {number} i
 */
function cassandraPaths(cfg, i) {
  const dir = path.join(cfg.stackDir, 'cassandra', `node${i}`);
  return {
    dir,
    conf: path.join(dir, 'conf'),
    yaml: path.join(dir, 'conf', 'cassandra.yaml'),
    logback: path.join(dir, 'conf', 'logback.xml'),
    logs: path.join(dir, 'logs'),
    systemLog: path.join(dir, 'logs', 'system.log'),
    stdoutLog: path.join(dir, 'logs', 'stdout.log'),
    pidFile: path.join(dir, 'cassandra.pid'),
    data: path.join(dir, 'data'),
    commitlog: path.join(dir, 'commitlog'),
    savedCaches: path.join(dir, 'saved_caches'),
    hints: path.join(dir, 'hints'),
    cdcRaw: path.join(dir, 'cdc_raw'),
    /** in the JVM's command line, so that a recycled pid is never taken for ours */
    marker: `-Dostore.stack.process=${dir}`,
  };
}

/**
 * Files and dirs of the Kafka broker.
 * @param {StackConfig} cfg
 */
function kafkaPaths(cfg) {
  const dir = path.join(cfg.stackDir, 'kafka');
  return {
    dir,
    conf: path.join(dir, 'conf'),
    props: path.join(dir, 'conf', 'server.properties'),
    log4j: path.join(dir, 'conf', 'log4j.properties'),
    logs: path.join(dir, 'logs'),
    serverLog: path.join(dir, 'logs', 'server.log'),
    stdoutLog: path.join(dir, 'logs', 'stdout.log'),
    pidFile: path.join(dir, 'kafka.pid'),
    data: path.join(dir, 'data'),
    clusterIdFile: path.join(dir, 'cluster.id'),
    marker: `-Dostore.stack.process=${dir}`,
  };
}

/**
 * How clients reach a stack.
 * @typedef {object} Endpoints
 * @property {{ host: string, port: number, contactPoints: string[], localDataCenter: string,
 *   clientOptions: { contactPoints: string[], localDataCenter: string, protocolOptions: { port: number } } }} cassandra
 * @property {{ brokers: string[] }} kafka
 */

/**
 * @param {StackConfig} cfg
 * @returns {Endpoints}
 */
function endpoints(cfg) {
  const contactPoints = [];
  for (let i = 1; i <= cfg.cassandra.nodes; i++) contactPoints.push(`${nodeAddress(cfg, i)}:${cfg.cassandra.port}`);
  return {
    cassandra: {
      host: nodeAddress(cfg, 1),
      port: cfg.cassandra.port,
      contactPoints,
      localDataCenter: LOCAL_DC,
      // Spread into `new cassandra.Client({...})`. protocolOptions.port matters with a non-default
      // port: the driver dials peers it discovers (system.peers_v2) on protocolOptions.port, not on
      // the contact point's port.
      clientOptions: { contactPoints, localDataCenter: LOCAL_DC, protocolOptions: { port: cfg.cassandra.port } },
    },
    kafka: { brokers: [`${cfg.kafka.host}:${cfg.kafka.port}`] },
  };
}

module.exports = {
  REPO_ROOT,
  DEFAULT_STACK_DIR,
  LOCAL_DC,
  configFromEnv,
  stackFile,
  savedConfig,
  effectiveConfig,
  nodeAddress,
  nodeList,
  cassandraPaths,
  kafkaPaths,
  endpoints,
};
