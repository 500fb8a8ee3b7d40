// @ts-check
'use strict';
/** The stack's command line (`node tools/stack/stack.mjs <command>`); see ./README.md. */

const stack = require('./index.cjs');

const USAGE = `usage: node tools/stack/stack.mjs <command> [options]

commands:
  up                 resolve jars if needed, start Cassandra + Kafka (parallel), wait until ready
  down [--purge]     stop what 'up' started from this stack dir; --purge also deletes data and logs
  purge              same as 'down --purge'
  status [--json]    show servers, pids, ports, dirs; exit 0 only if everything is up and ready
  stop-cassandra [--node N]    stop Cassandra (all nodes or node N), Kafka keeps running
  start-cassandra [--node N]   start it again and wait until CQL answers
  stop-kafka / start-kafka
  resolve            only fetch the jars into the cache (OSTORE_JAR_CACHE)
  endpoints [--json] print the CQL contact points and Kafka brokers
  nodetool [--node N] [--] ARGS...  Cassandra's nodetool against node N (default 1), e.g. 'nodetool -- compact ks t'

options:
  --cassandra-nodes N   (up) number of Cassandra nodes on 127.0.0.1..127.0.0.N (default 1)
  --timeout S           readiness deadline in seconds (default 180)
  --quiet               no progress output

env: OSTORE_STACK_DIR OSTORE_JAR_CACHE OSTORE_CASSANDRA_HOST OSTORE_CASSANDRA_PORT
     OSTORE_CASSANDRA_STORAGE_PORT OSTORE_CASSANDRA_NODES OSTORE_CASSANDRA_NUM_TOKENS
     OSTORE_CASSANDRA_HEAP OSTORE_CASSANDRA_VERSION OSTORE_KAFKA_HOST OSTORE_KAFKA_PORT
     OSTORE_KAFKA_CONTROLLER_PORT OSTORE_KAFKA_HEAP OSTORE_KAFKA_VERSION OSTORE_STACK_TIMEOUT
     OSTORE_JAVA OSTORE_MVN`;

/**
 * @typedef {{ _: string[], purge?: boolean, json?: boolean, quiet?: boolean, cassandraNodes?: number, node?: number, timeoutSec?: number, help?: boolean }} Args
 */

/**
 * @param {string[]} argv
 * @returns {Args}
 */
function parseArgs(argv) {
  /** @type {Args} */
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out._.push(...argv.slice(i + 1));
      break;
    }
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    /** @param {string} v */
    const int = (v) => {
      const n = Number.parseInt(v, 10);
      if (!Number.isInteger(n) || String(n) !== v) throw new Error(`${a}: not an integer: ${v}`);
      return n;
    };
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const val = () => (inline !== undefined ? inline : next());
    switch (flag) {
      case '--purge': out.purge = true; break;
      case '--json': out.json = true; break;
      case '--quiet': out.quiet = true; break;
      case '--cassandra-nodes': out.cassandraNodes = int(val()); break;
      case '--node': out.node = int(val()); break;
      case '--timeout': out.timeoutSec = int(val()); break;
      case '-h': case '--help': out.help = true; break;
      default:
        if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
        out._.push(a);
    }
  }
  return out;
}

/** @param {string} msg */
function log(msg) {
  process.stdout.write(`[stack] ${msg}\n`);
}

/** @param {Awaited<ReturnType<typeof stack.status>>} s */
function printStatus(s) {
  const lines = [];
  lines.push(`stack dir: ${s.stackDir}   (Cassandra ${s.versions.cassandra}, Kafka ${s.versions.kafka}, jars ${s.jarCache})`);
  for (const n of s.cassandra.nodes) {
    const state = n.pid ? (n.ready ? 'UP' : `RUNNING, not ready (${n.error})`) : n.ready ? 'UP (not started by this stack dir)' : 'DOWN';
    lines.push(`cassandra node${n.node}: ${state}  pid=${n.pid ?? '-'}  cql=${n.address}:${n.port}  storage=${n.address}:${n.storagePort}${n.release ? `  version=${n.release}` : ''}${n.memtables ? `  memtables=${n.memtables}` : ''}`);
    lines.push(`    dir=${n.dir}  log=${n.log}`);
  }
  const k = s.kafka;
  const kstate = k.pid ? (k.ready ? 'UP' : `RUNNING, not ready (${k.error})`) : k.ready ? 'UP (not started by this stack dir)' : 'DOWN';
  lines.push(`kafka: ${kstate}  pid=${k.pid ?? '-'}  broker=${k.host}:${k.port}  controller=${k.host}:${k.controllerPort}${k.clusterId ? `  cluster.id=${k.clusterId}` : ''}`);
  lines.push(`    dir=${k.dir}  log=${k.log}`);
  lines.push(s.up ? 'stack is UP' : 'stack is NOT fully up');
  process.stdout.write(lines.join('\n') + '\n');
}

/** @param {import('./config.cjs').Endpoints} e */
function printEndpoints(e) {
  process.stdout.write(
    [
      `CQL:   ${e.cassandra.contactPoints.join(',')}  (local data center: ${e.cassandra.localDataCenter})`,
      `Kafka: ${e.kafka.brokers.join(',')}`,
    ].join('\n') + '\n',
  );
}

/**
 * Runs one CLI command; resolves with the exit code.
 * @param {string[]} argv
 * @returns {Promise<number>}
 */
async function main(argv) {
  const args = parseArgs(argv);
  const cmd = args._[0];
  if (args.help || !cmd) {
    process.stdout.write(USAGE + '\n');
    return cmd || args.help ? 0 : 2;
  }
  /** @type {import('./config.cjs').StackOptions & Record<string, unknown>} */
  const opts = {
    cassandraNodes: args.cassandraNodes,
    timeoutSec: args.timeoutSec,
    node: args.node,
    purge: args.purge,
    log: args.quiet ? () => {} : log,
  };
  for (const k of Object.keys(opts)) if (opts[k] === undefined) delete opts[k];
  switch (cmd) {
    case 'up': {
      const t0 = Date.now();
      const r = await stack.ensureStackUp(opts);
      const s = await stack.status(opts);
      printStatus(s);
      printEndpoints(r);
      log(r.startedByUs ? `up in ${((Date.now() - t0) / 1000).toFixed(1)}s` : 'already running; nothing started');
      return 0;
    }
    case 'down':
      await stack.stackDown(opts);
      return 0;
    case 'purge':
      await stack.stackDown({ ...opts, purge: true });
      return 0;
    case 'status': {
      const s = await stack.status(opts);
      if (args.json) process.stdout.write(JSON.stringify(s, null, 2) + '\n');
      else printStatus(s);
      return s.up ? 0 : 1;
    }
    case 'stop-cassandra':
      await stack.stopCassandra(opts);
      return 0;
    case 'start-cassandra':
      await stack.startCassandra(opts);
      return 0;
    case 'stop-kafka':
      await stack.stopKafka(opts);
      return 0;
    case 'start-kafka':
      await stack.startKafka(opts);
      return 0;
    case 'resolve': {
      const dirs = stack.resolveJars(opts);
      log(`cassandra jars: ${dirs.cassandra}`);
      log(`kafka jars:     ${dirs.kafka}`);
      return 0;
    }
    case 'endpoints': {
      const e = stack.endpoints(opts);
      if (args.json) process.stdout.write(JSON.stringify(e, null, 2) + '\n');
      else printEndpoints(e);
      return 0;
    }
    case 'nodetool':
      process.stdout.write(stack.nodetool(args._.slice(1), opts));
      return 0;
    default:
      process.stderr.write(`unknown command '${cmd}'\n${USAGE}\n`);
      return 2;
  }
}

/**
 * Runs the CLI and exits with its code.
 * @param {string[]} argv
 */
function run(argv) {
  main(argv).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`[stack] ERROR: ${err instanceof Error ? err.message : err}\n`);
      process.exit(1);
    },
  );
}

module.exports = { main, run };
