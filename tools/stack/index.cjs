'use strict';
/**
 * OStore local stack: Apache Cassandra 5.0 + Apache Kafka 3.9 (KRaft) started from
 * Maven Central jars with the JDK 17 `java`, no Docker.
 *
 * CommonJS on purpose, so Jest global setup (TypeScript compiled to CJS) can require it.
 * The CLI is ./stack.mjs; see ./README.md.
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

const fs = require('fs');
const os = require('os');
const path = require('path');
const net = require('net');
const crypto = require('crypto');
const { spawn, spawnSync } = require('child_process');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_CASSANDRA_VERSION = '5.0.9';
const DEFAULT_KAFKA_VERSION = '3.9.1';
const LOCAL_DC = 'datacenter1'; // what SimpleSnitch reports
const JDK17_FALLBACK = '/usr/lib/jvm/java-17-openjdk-amd64/bin/java';

// ---------------------------------------------------------------------------
// small helpers
// ---------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function envInt(name, def) {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n) || String(n) !== v.trim()) throw new Error(`${name}=${v} is not an integer`);
  return n;
}

function envStr(name, def) {
  const v = process.env[name];
  return v === undefined || v === '' ? def : v;
}

function mkdirp(p) {
  fs.mkdirSync(p, { recursive: true });
}

function readText(p) {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

function writeIfChanged(p, text) {
  if (readText(p) !== text) fs.writeFileSync(p, text);
}

function tail(file, lines = 25) {
  const t = readText(file);
  if (t === null) return `(no ${file})`;
  return t.split('\n').slice(-lines - 1).join('\n');
}

function fmtSecs(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** Is `pid` alive and (on Linux) really the process we started (marker in its cmdline)? */
function pidAlive(pid, marker) {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (e.code !== 'EPERM') return false;
  }
  // zombie / pid reuse protection where /proc exists
  const stat = readText(`/proc/${pid}/stat`);
  if (stat !== null) {
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    if (marker) {
      const cmd = readText(`/proc/${pid}/cmdline`);
      if (cmd !== null && !cmd.split('\0').includes(marker)) return false;
    }
  }
  return true;
}

function readPid(file) {
  const t = readText(file);
  if (t === null) return null;
  const n = Number.parseInt(t.trim(), 10);
  return Number.isInteger(n) && n > 0 ? n : null;
}

function portOpen(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok) => {
      s.removeAllListeners();
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Can we bind host:port right now? (false = something else holds it) */
function portFree(host, port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

function ipv4Offset(ip, offset) {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`OSTORE_CASSANDRA_HOST must be an IPv4 address for multi-node stacks, got ${ip}`);
  }
  const last = parts[3] + offset;
  if (last > 254) throw new Error(`cannot derive address #${offset + 1} from ${ip}`);
  return `${parts[0]}.${parts[1]}.${parts[2]}.${last}`;
}

// ---------------------------------------------------------------------------
// configuration
// ---------------------------------------------------------------------------

/**
 * Config from explicit options, then env, then defaults.
 * opts: { stackDir, jarCache, cassandraNodes, numTokens, timeoutSec, ... }
 */
function configFromEnv(opts = {}) {
  const stackDir = path.resolve(opts.stackDir || envStr('OSTORE_STACK_DIR', path.join(REPO_ROOT, '.stack')));
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

function stackFile(stackDir) {
  return path.join(stackDir, 'stack.json');
}

/** Saved config of the last `up` in this stack dir (or null). */
function savedConfig(stackDir) {
  const t = readText(stackFile(stackDir));
  if (!t) return null;
  try {
    return JSON.parse(t);
  } catch {
    return null;
  }
}

/** Config to act on an existing stack: the saved one wins (it describes what runs). */
function effectiveConfig(opts = {}) {
  const fromEnv = configFromEnv(opts);
  const saved = savedConfig(fromEnv.stackDir);
  if (!saved) return fromEnv;
  // Only what identifies the running servers is taken from the saved config; tunables
  // (heap, timeout) still come from options/env.
  const pick = (obj, keys) => Object.fromEntries(keys.filter((k) => obj && obj[k] !== undefined).map((k) => [k, obj[k]]));
  return {
    ...fromEnv,
    cassandra: { ...fromEnv.cassandra, ...pick(saved.cassandra, ['version', 'host', 'port', 'storagePort', 'nodes', 'numTokens', 'clusterName']) },
    kafka: { ...fromEnv.kafka, ...pick(saved.kafka, ['version', 'host', 'port', 'controllerPort']) },
    jarCache: saved.jarCache || fromEnv.jarCache,
  };
}

function nodeAddress(cfg, i) {
  return cfg.cassandra.nodes === 1 && i === 1 ? cfg.cassandra.host : ipv4Offset(cfg.cassandra.host, i - 1);
}

function cassandraNodeDir(cfg, i) {
  return path.join(cfg.stackDir, 'cassandra', `node${i}`);
}

function cassandraPaths(cfg, i) {
  const dir = cassandraNodeDir(cfg, i);
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
    marker: `-Dostore.stack.process=${path.join(cfg.stackDir, 'cassandra', `node${i}`)}`,
  };
}

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

// ---------------------------------------------------------------------------
// Java 17
// ---------------------------------------------------------------------------

function javaMajorOf(javaBin) {
  // Prefer the JDK's `release` file (no JVM start); fall back to `java -version`.
  try {
    const home = path.dirname(path.dirname(fs.realpathSync(javaBin)));
    const rel = readText(path.join(home, 'release'));
    const m = rel && rel.match(/^JAVA_VERSION="(\d+)/m);
    if (m) return Number(m[1]);
  } catch {
    return null;
  }
  const r = spawnSync(javaBin, ['-version'], { encoding: 'utf8' });
  const m = `${r.stderr}${r.stdout}`.match(/version "(\d+)(?:\.(\d+))?/);
  if (!m) return null;
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

let cachedJava = null;
/** Absolute path of a JDK 17 `java`. Cassandra 5.0 runs on 11/17 only, never on 21/25. */
function findJava17() {
  if (cachedJava) return cachedJava;
  const candidates = [];
  if (process.env.OSTORE_JAVA) {
    const j = process.env.OSTORE_JAVA;
    if (javaMajorOf(j) !== 17) throw new Error(`OSTORE_JAVA=${j} is not a Java 17 runtime`);
    return (cachedJava = j);
  }
  if (process.env.JAVA_HOME) candidates.push(path.join(process.env.JAVA_HOME, 'bin', 'java'));
  candidates.push(JDK17_FALLBACK);
  try {
    for (const d of fs.readdirSync('/usr/lib/jvm')) candidates.push(path.join('/usr/lib/jvm', d, 'bin', 'java'));
  } catch {
    /* not Debian-like */
  }
  for (const c of candidates) {
    if (fs.existsSync(c) && javaMajorOf(c) === 17) return (cachedJava = c);
  }
  throw new Error('No Java 17 found: set OSTORE_JAVA or JAVA_HOME to a JDK 17 (apt-get install openjdk-17-jre-headless)');
}

// ---------------------------------------------------------------------------
// jars (Maven Central -> cache outside the repo)
// ---------------------------------------------------------------------------

const MAVEN = {
  cassandra: { pom: path.join(__dirname, 'maven', 'cassandra', 'pom.xml'), prop: 'cassandra.version', mainJar: (v) => `cassandra-all-${v}.jar` },
  kafka: { pom: path.join(__dirname, 'maven', 'kafka', 'pom.xml'), prop: 'kafka.version', mainJar: (v) => `kafka_2.13-${v}.jar` },
};
const COMPLETE_MARKER = '.ostore-complete';

function jarDir(cfg, which) {
  return path.join(cfg.jarCache, `${which}-${cfg[which].version}`);
}

/** Fingerprint of what a cache folder was resolved from: the pom's text and the version. */
function pomFingerprint(which, version) {
  return crypto.createHash('sha256').update(fs.readFileSync(MAVEN[which].pom)).update(`\0${version}`).digest('hex').slice(0, 16);
}

/** Complete = marker present and written for the same pom + version (a pom edit re-resolves). */
function jarsComplete(dir, fingerprint) {
  const t = readText(path.join(dir, COMPLETE_MARKER));
  if (t === null) return false;
  try {
    return !fingerprint || JSON.parse(t).pom === fingerprint;
  } catch {
    return false;
  }
}

/** Resolve one component's runtime jars with Maven unless the cache folder is complete. */
function resolveJars(cfg, which, log = () => {}) {
  const spec = MAVEN[which];
  const version = cfg[which].version;
  const dir = jarDir(cfg, which);
  const fingerprint = pomFingerprint(which, version);
  if (jarsComplete(dir, fingerprint)) return dir;
  const mvn = envStr('OSTORE_MVN', 'mvn');
  const tmp = `${dir}.partial-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  mkdirp(path.dirname(dir));
  log(`resolving ${which} ${version} jars with Maven into ${dir} ...`);
  const t0 = Date.now();
  const r = spawnSync(
    mvn,
    [
      '-q', '-B', '-f', spec.pom,
      `-D${spec.prop}=${version}`,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${tmp}`,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.error) throw new Error(`cannot run ${mvn}: ${r.error.message} (install Maven, or fill ${dir} by other means)`);
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`Maven failed to resolve ${which} ${version} (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  const jars = fs.readdirSync(tmp).filter((f) => f.endsWith('.jar')).sort();
  if (!jars.includes(spec.mainJar(version))) {
    throw new Error(`Maven output ${tmp} lacks ${spec.mainJar(version)}`);
  }
  fs.writeFileSync(
    path.join(tmp, COMPLETE_MARKER),
    JSON.stringify({ component: which, version, pom: fingerprint, resolvedAt: new Date().toISOString(), jars }, null, 2) + '\n',
  );
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    fs.renameSync(tmp, dir);
  } catch (e) {
    // a concurrent resolver may have won the race
    if (!jarsComplete(dir, fingerprint)) throw e;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  log(`resolved ${which} ${version}: ${jars.length} jars in ${fmtSecs(Date.now() - t0)}`);
  return dir;
}

// ---------------------------------------------------------------------------
// generated configuration files
// ---------------------------------------------------------------------------

function cassandraYaml(cfg, i) {
  const p = cassandraPaths(cfg, i);
  const c = cfg.cassandra;
  const addr = nodeAddress(cfg, i);
  const seed = nodeAddress(cfg, 1);
  return `# Generated by tools/stack (OStore local stack) - do not edit, regenerated on every start.
cluster_name: '${c.clusterName}'
num_tokens: ${c.numTokens}
# no allocate_tokens_for_local_replication_factor: the allocator waits RING_DELAY (30 s) on a fresh
# node; random tokens start at once and are fine for a dev/test cluster.
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
auto_bootstrap: false
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "${seed}:${c.storagePort}"
listen_address: ${addr}
rpc_address: ${addr}
storage_port: ${c.storagePort}
native_transport_port: ${c.port}
start_native_transport: true
data_file_directories:
  - ${p.data}
commitlog_directory: ${p.commitlog}
saved_caches_directory: ${p.savedCaches}
hints_directory: ${p.hints}
cdc_raw_directory: ${p.cdcRaw}
commitlog_sync: periodic
commitlog_sync_period: 10000ms
disk_access_mode: standard
storage_compatibility_mode: NONE
memtable_heap_space: 64MiB
memtable_offheap_space: 64MiB
# Tests create many small keyspaces; slab allocation would pin a 1 MiB region per memtable
# (hundreds of tables -> the heap fills and Cassandra dies with OutOfMemoryError).
memtable_allocation_type: unslabbed_heap_buffers
concurrent_compactors: 1
concurrent_reads: 8
concurrent_writes: 8
concurrent_counter_writes: 8
concurrent_materialized_view_writes: 8
auto_snapshot: false
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
${c.paxosVariant ? `paxos_variant: ${c.paxosVariant}\n` : ''}`;
}

function cassandraLogback(cfg, i) {
  const p = cassandraPaths(cfg, i);
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by tools/stack. INFO and above to system.log; warnings also to stdout.log. -->
<configuration scan="false">
  <appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>${p.systemLog}</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.FixedWindowRollingPolicy">
      <fileNamePattern>${p.systemLog}.%i</fileNamePattern>
      <minIndex>1</minIndex>
      <maxIndex>3</maxIndex>
    </rollingPolicy>
    <triggeringPolicy class="ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy">
      <maxFileSize>20MB</maxFileSize>
    </triggeringPolicy>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter"><level>WARN</level></filter>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO">
    <appender-ref ref="FILE"/>
    <appender-ref ref="STDOUT"/>
  </root>
</configuration>
`;
}

function kafkaProperties(cfg) {
  const p = kafkaPaths(cfg);
  const k = cfg.kafka;
  return `# Generated by tools/stack (OStore local stack) - do not edit, regenerated on every start.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${k.host}:${k.controllerPort}
listeners=PLAINTEXT://${k.host}:${k.port},CONTROLLER://${k.host}:${k.controllerPort}
advertised.listeners=PLAINTEXT://${k.host}:${k.port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${p.data}
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
log.retention.hours=24
`;
}

function kafkaLog4j(cfg) {
  const p = kafkaPaths(cfg);
  return `# Generated by tools/stack.
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=${p.serverLog}
log4j.appender.file.MaxFileSize=20MB
log4j.appender.file.MaxBackupIndex=3
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.clients.NetworkClient=WARN
`;
}

// ---------------------------------------------------------------------------
// JVM command lines
// ---------------------------------------------------------------------------

// From Cassandra 5.0 conf/jvm17-server.options (JPMS section): what Cassandra needs on JDK 17.
const CASSANDRA_JDK17_MODULE_FLAGS = [
  ['--add-exports', 'java.base/jdk.internal.misc'],
  ['--add-exports', 'java.management.rmi/com.sun.jmx.remote.internal.rmi'],
  ['--add-exports', 'java.rmi/sun.rmi.registry'],
  ['--add-exports', 'java.rmi/sun.rmi.server'],
  ['--add-exports', 'java.sql/java.sql'],
  ['--add-exports', 'java.base/java.lang.ref'],
  ['--add-exports', 'jdk.unsupported/sun.misc'],
  ['--add-exports', 'jdk.compiler/com.sun.tools.javac.file'],
  ['--add-exports', 'jdk.attach/sun.tools.attach'],
  ['--add-opens', 'java.base/java.lang.module'],
  ['--add-opens', 'java.base/jdk.internal.loader'],
  ['--add-opens', 'java.base/jdk.internal.ref'],
  ['--add-opens', 'java.base/jdk.internal.reflect'],
  ['--add-opens', 'java.base/jdk.internal.math'],
  ['--add-opens', 'java.base/jdk.internal.module'],
  ['--add-opens', 'java.base/jdk.internal.util.jar'],
  ['--add-opens', 'jdk.management/com.sun.management.internal'],
  ['--add-opens', 'java.base/sun.nio.ch'],
  ['--add-opens', 'java.base/java.io'],
  ['--add-opens', 'java.base/java.lang.reflect'],
  ['--add-opens', 'jdk.compiler/com.sun.tools.javac'],
  ['--add-opens', 'java.base/java.lang'],
  ['--add-opens', 'java.base/java.util'],
].map(([flag, what]) => `${flag}=${what}=ALL-UNNAMED`);

function cassandraArgs(cfg, i, jars) {
  const p = cassandraPaths(cfg, i);
  const heap = cfg.cassandra.heap;
  const jamm = fs.readdirSync(jars).find((f) => /^jamm-.*\.jar$/.test(f));
  return [
    p.marker,
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-Xss256k',
    '-XX:+UseG1GC',
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:+PerfDisableSharedMem',
    '-ea',
    '-da:net.openhft...',
    '-Djava.net.preferIPv4Stack=true',
    ...(jamm ? [`-javaagent:${path.join(jars, jamm)}`] : []),
    '-Djdk.attach.allowAttachSelf=true',
    ...CASSANDRA_JDK17_MODULE_FLAGS,
    '-Dio.netty.tryReflectionSetAccessible=true',
    '-Dcassandra-foreground=yes',
    `-Dcassandra.config=file://${p.yaml}`,
    `-Dlogback.configurationFile=file://${p.logback}`,
    `-Dcassandra.logdir=${p.logs}`,
    '-Dcassandra.skip_wait_for_gossip_to_settle=0',
    '-Dcassandra.libjemalloc=-',
    // no -Dcassandra.jmx.*port: JMX stays off
    '-cp',
    `${jars}/*`,
    'org.apache.cassandra.service.CassandraDaemon',
  ];
}

function kafkaArgs(cfg, jars) {
  const p = kafkaPaths(cfg);
  const heap = cfg.kafka.heap;
  return [
    p.marker,
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:+PerfDisableSharedMem',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file://${p.log4j}`,
    `-Dkafka.logs.dir=${p.logs}`,
    '-cp',
    `${jars}/*`,
    'kafka.Kafka',
    p.props,
  ];
}

/** Kafka cluster ids are 16 random bytes, base64url without padding (org.apache.kafka.common.Uuid). */
function newKafkaClusterId() {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function spawnDetached(java, args, cwd, stdoutLog) {
  mkdirp(path.dirname(stdoutLog));
  const cmdFile = path.join(cwd, 'java-command.txt');
  fs.writeFileSync(cmdFile, [java, ...args].join(' \\\n  ') + '\n');
  const fd = fs.openSync(stdoutLog, 'a');
  fs.writeSync(fd, `\n===== ${new Date().toISOString()} starting java (command line: ${cmdFile})\n`);
  try {
    const child = spawn(java, args, { cwd, detached: true, stdio: ['ignore', fd, fd], env: process.env });
    child.unref();
    return child.pid;
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------
// readiness probes
// ---------------------------------------------------------------------------

function requireDep(name) {
  try {
    return require(name);
  } catch (e) {
    throw new Error(`tools/stack needs the '${name}' package (npm install at the repo root): ${e.message}`);
  }
}

/** One CQL round trip against exactly host:port. Returns {ok, release?, peers?, error?}. */
async function probeCassandra(host, port, { timeoutMs = 4000 } = {}) {
  if (!(await portOpen(host, port, 1000))) return { ok: false, error: 'port closed' };
  const cassandra = requireDep('cassandra-driver');
  const lb = cassandra.policies.loadBalancing;
  const AllowList = lb.AllowListPolicy || lb.WhiteListPolicy;
  const client = new cassandra.Client({
    contactPoints: [`${host}:${port}`],
    localDataCenter: LOCAL_DC,
    protocolOptions: { port },
    isMetadataSyncEnabled: false,
    socketOptions: { connectTimeout: timeoutMs, readTimeout: timeoutMs },
    policies: {
      loadBalancing: new AllowList(new lb.DCAwareRoundRobinPolicy(LOCAL_DC), [`${host}:${port}`]),
      reconnection: new cassandra.policies.reconnection.ConstantReconnectionPolicy(60000),
    },
    pooling: { warmup: false },
  });
  try {
    await client.connect();
    const rs = await client.execute('SELECT release_version FROM system.local');
    const peers = await client.execute('SELECT peer FROM system.peers_v2');
    return { ok: true, release: rs.first().release_version, peers: peers.rowLength };
  } catch (e) {
    return { ok: false, error: (e && e.message ? e.message : String(e)).split('\n')[0] };
  } finally {
    await client.shutdown().catch(() => {});
  }
}

async function probeKafka(host, port, { timeoutMs = 4000 } = {}) {
  if (!(await portOpen(host, port, 1000))) return { ok: false, error: 'port closed' };
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
    return { ok: false, error: (e && e.message ? e.message : String(e)).split('\n')[0] };
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

// ---------------------------------------------------------------------------
// lock (two `up`s at once, e.g. parallel Jest runs)
// ---------------------------------------------------------------------------

async function withLock(cfg, fn, log) {
  mkdirp(cfg.stackDir);
  const lock = path.join(cfg.stackDir, '.lock');
  const deadline = Date.now() + (cfg.timeoutSec + 60) * 1000;
  let said = false;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const holder = readPid(path.join(lock, 'pid'));
      let stale = holder !== null && !pidAlive(holder);
      if (holder === null) {
        // lock dir without pid: stale if older than a few seconds
        try {
          stale = Date.now() - fs.statSync(lock).mtimeMs > 5000;
        } catch {
          stale = true;
        }
      }
      if (stale) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${lock} (held by pid ${holder})`);
      if (!said) {
        log(`another stack command (pid ${holder}) is running in ${cfg.stackDir}; waiting ...`);
        said = true;
      }
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// process control
// ---------------------------------------------------------------------------

function cassandraPid(cfg, i) {
  const p = cassandraPaths(cfg, i);
  const pid = readPid(p.pidFile);
  return pid && pidAlive(pid, p.marker) ? pid : null;
}

function kafkaPid(cfg) {
  const p = kafkaPaths(cfg);
  const pid = readPid(p.pidFile);
  return pid && pidAlive(pid, p.marker) ? pid : null;
}

function nodeList(cfg, node) {
  if (node === undefined || node === null) return Array.from({ length: cfg.cassandra.nodes }, (_, k) => k + 1);
  if (!Number.isInteger(node) || node < 1 || node > cfg.cassandra.nodes) {
    throw new Error(`--node must be 1..${cfg.cassandra.nodes}`);
  }
  return [node];
}

async function ensureFree(host, port, what) {
  if (!(await portFree(host, port))) {
    throw new Error(`${what}: ${host}:${port} is already in use by another process (not started by this stack dir)`);
  }
}

function startCassandraNode(cfg, i, jars, log) {
  const p = cassandraPaths(cfg, i);
  for (const d of [p.conf, p.logs, p.data, p.commitlog, p.savedCaches, p.hints, p.cdcRaw]) mkdirp(d);
  writeIfChanged(p.yaml, cassandraYaml(cfg, i));
  writeIfChanged(p.logback, cassandraLogback(cfg, i));
  const pid = spawnDetached(findJava17(), cassandraArgs(cfg, i, jars), p.dir, p.stdoutLog);
  fs.writeFileSync(p.pidFile, `${pid}\n`);
  log(`started cassandra node${i} (pid ${pid}) on ${nodeAddress(cfg, i)}:${cfg.cassandra.port}`);
  return pid;
}

function formatKafkaIfNeeded(cfg, jars, log) {
  const p = kafkaPaths(cfg);
  if (fs.existsSync(path.join(p.data, 'meta.properties'))) return;
  mkdirp(p.data);
  let id = (readText(p.clusterIdFile) || '').trim();
  if (!id) {
    id = newKafkaClusterId();
    fs.writeFileSync(p.clusterIdFile, `${id}\n`);
  }
  const r = spawnSync(
    findJava17(),
    [`-Dlog4j.configuration=file://${p.log4j}`, '-cp', `${jars}/*`, 'kafka.tools.StorageTool', 'format', '-t', id, '-c', p.props, '--ignore-formatted'],
    { encoding: 'utf8', cwd: p.dir },
  );
  if (r.status !== 0) throw new Error(`kafka storage format failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  log(`formatted kafka storage ${p.data} (cluster id ${id})`);
}

function startKafkaProcess(cfg, jars, log) {
  const p = kafkaPaths(cfg);
  for (const d of [p.conf, p.logs, p.data]) mkdirp(d);
  writeIfChanged(p.props, kafkaProperties(cfg));
  writeIfChanged(p.log4j, kafkaLog4j(cfg));
  formatKafkaIfNeeded(cfg, jars, log);
  const pid = spawnDetached(findJava17(), kafkaArgs(cfg, jars), p.dir, p.stdoutLog);
  fs.writeFileSync(p.pidFile, `${pid}\n`);
  log(`started kafka (pid ${pid}) on ${cfg.kafka.host}:${cfg.kafka.port}`);
  return pid;
}

/** SIGTERM, wait, SIGKILL after graceMs. Resolves when all are gone. */
async function stopPids(entries, log, graceMs = 45000) {
  const live = entries.filter((e) => e.pid && pidAlive(e.pid, e.marker));
  for (const e of live) {
    try {
      process.kill(e.pid, 'SIGTERM');
      log(`stopping ${e.name} (pid ${e.pid}) ...`);
    } catch {
      /* gone */
    }
  }
  const t0 = Date.now();
  let killed = false;
  while (live.some((e) => pidAlive(e.pid, e.marker))) {
    if (!killed && Date.now() - t0 > graceMs) {
      for (const e of live) {
        if (pidAlive(e.pid, e.marker)) {
          log(`${e.name} (pid ${e.pid}) did not stop in ${fmtSecs(graceMs)}; SIGKILL`);
          try {
            process.kill(e.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
      }
      killed = true;
    }
    if (Date.now() - t0 > graceMs + 15000) throw new Error(`could not stop ${live.map((e) => e.name).join(', ')}`);
    await sleep(200);
  }
  for (const e of entries) if (e.pidFile) fs.rmSync(e.pidFile, { force: true });
  if (live.length) log(`stopped ${live.map((e) => e.name).join(', ')} in ${fmtSecs(Date.now() - t0)}`);
  return live.length;
}

/**
 * Wait until every item's probe passes. items: [{name, probe: async()=>{ok,error}, pid, marker, logFile}]
 */
async function waitReady(items, deadlineMs, log) {
  const t0 = Date.now();
  const pending = new Map(items.map((it) => [it.name, it]));
  const last = new Map();
  let lastReport = Date.now();
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
      const why = [...pending.keys()].map((n) => `${n}: ${last.get(n)} (log ${pending.get(n).logFile})`).join('\n  ');
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

// ---------------------------------------------------------------------------
// public API
// ---------------------------------------------------------------------------

function defaultLogger(opts) {
  if (opts && opts.log) return opts.log;
  if (opts && opts.quiet) return () => {};
  return (msg) => process.stderr.write(`[stack] ${msg}\n`);
}

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

function cassandraProbeItems(cfg, nodes) {
  return nodes.map((i) => {
    const p = cassandraPaths(cfg, i);
    const host = nodeAddress(cfg, i);
    const want = cfg.cassandra.nodes - 1;
    return {
      name: `cassandra node${i}`,
      pid: cassandraPid(cfg, i),
      marker: p.marker,
      logFile: p.systemLog,
      stdoutLog: p.stdoutLog,
      // ready = CQL answers on this node and it knows all its peers
      probe: async () => {
        const r = await probeCassandra(host, cfg.cassandra.port);
        if (r.ok && r.peers < want) return { ok: false, error: `sees ${r.peers}/${want} peers` };
        return r;
      },
    };
  });
}

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

/**
 * Start whatever part of the stack is not running, wait for readiness.
 * opts: { stackDir, cassandraNodes, timeoutSec, quiet, log, only: 'cassandra'|'kafka' , ... } (env fills the rest)
 * Returns { cassandra:{host,port,contactPoints,localDataCenter,clientOptions}, kafka:{brokers},
 *           startedByUs, started:{cassandraNodes:number[], kafka:boolean}, stackDir }.
 */
async function ensureStackUp(opts = {}) {
  const log = defaultLogger(opts);
  const wanted = configFromEnv(opts);
  return withLock(wanted, async () => {
    const saved = savedConfig(wanted.stackDir);
    let cfg = wanted;
    const runningNow = saved && (anyCassandraRunning({ ...wanted, ...saved }) || kafkaPid({ ...wanted, ...saved }));
    if (saved && runningNow) {
      cfg = effectiveConfig(opts);
      const diff = ['port', 'storagePort', 'nodes', 'host'].filter((k) => wanted.cassandra[k] !== cfg.cassandra[k])
        .map((k) => `cassandra.${k}`)
        .concat(['port', 'controllerPort', 'host'].filter((k) => wanted.kafka[k] !== cfg.kafka[k]).map((k) => `kafka.${k}`));
      if (diff.length) log(`note: stack in ${cfg.stackDir} already runs with different ${diff.join(', ')}; keeping the running config (run down first to change it)`);
    }
    const wantCassandra = opts.only !== 'kafka';
    const wantKafka = opts.only !== 'cassandra';
    const deadline = Date.now() + cfg.timeoutSec * 1000;
    const t0 = Date.now();
    let startedByUs = false;

    // What is already up? (ours, or someone else's server on the same endpoints)
    const nodes = nodeList(cfg);
    const cassStart = [];
    const external = [];
    if (wantCassandra) {
      for (const i of nodes) {
        if (cassandraPid(cfg, i)) continue;
        const host = nodeAddress(cfg, i);
        if (await portOpen(host, cfg.cassandra.port, 500)) {
          const r = await probeCassandra(host, cfg.cassandra.port);
          if (r.ok) {
            external.push(`cassandra node${i}`);
            continue;
          }
          throw new Error(`${host}:${cfg.cassandra.port} is in use but is not a Cassandra of this stack dir (${r.error})`);
        }
        await ensureFree(host, cfg.cassandra.storagePort, `cassandra node${i} storage port`);
        cassStart.push(i);
      }
    }
    let kafkaStart = false;
    if (wantKafka && !kafkaPid(cfg)) {
      if (await portOpen(cfg.kafka.host, cfg.kafka.port, 500)) {
        const r = await probeKafka(cfg.kafka.host, cfg.kafka.port);
        if (!r.ok) throw new Error(`${cfg.kafka.host}:${cfg.kafka.port} is in use but is not a Kafka of this stack dir (${r.error})`);
        external.push('kafka');
      } else {
        await ensureFree(cfg.kafka.host, cfg.kafka.controllerPort, 'kafka controller port');
        kafkaStart = true;
      }
    }
    if (external.length) log(`using already running server(s) not started from ${cfg.stackDir}: ${external.join(', ')}`);

    if (cassStart.length || kafkaStart) {
      findJava17();
      const jars = {};
      // Sequential on purpose: two Maven processes sharing ~/.m2 can corrupt it.
      if (kafkaStart) jars.kafka = resolveJars(cfg, 'kafka', log);
      if (cassStart.length) jars.cassandra = resolveJars(cfg, 'cassandra', log);
      mkdirp(cfg.stackDir);
      fs.writeFileSync(
        stackFile(cfg.stackDir),
        JSON.stringify({ cassandra: cfg.cassandra, kafka: cfg.kafka, jarCache: cfg.jarCache, java: findJava17() }, null, 2) + '\n',
      );
      startedByUs = true;
      // Both servers start in parallel; extra Cassandra nodes follow once the seed node answers.
      if (kafkaStart) startKafkaProcess(cfg, jars.kafka, log);
      const seedFirst = cassStart.includes(1) && cassStart.length > 1;
      for (const i of seedFirst ? [1] : cassStart) startCassandraNode(cfg, i, jars.cassandra, log);
      if (seedFirst) {
        await waitReady(cassandraProbeItems(cfg, [1]).map((it) => ({ ...it, probe: () => probeCassandra(nodeAddress(cfg, 1), cfg.cassandra.port) })), deadline, log);
        for (const i of cassStart.filter((n) => n !== 1)) startCassandraNode(cfg, i, jars.cassandra, log);
      }
    }

    const items = [];
    if (wantCassandra) items.push(...cassandraProbeItems(cfg, nodes).filter((it) => !external.includes(it.name)));
    if (wantKafka && !external.includes('kafka')) items.push(kafkaProbeItem(cfg));
    try {
      await waitReady(items, deadline, log);
    } catch (e) {
      e.message += `\n(processes were left running for inspection; stop them with: node tools/stack/stack.mjs down)`;
      throw e;
    }
    if (startedByUs) log(`stack ready in ${fmtSecs(Date.now() - t0)}`);
    return {
      ...endpoints(cfg),
      startedByUs,
      started: { cassandraNodes: cassStart, kafka: kafkaStart },
      stackDir: cfg.stackDir,
    };
  }, log);
}

function anyCassandraRunning(cfg) {
  return nodeList(cfg).some((i) => cassandraPid(cfg, i));
}

/** Stop everything started from this stack dir. opts.purge also deletes data + logs. */
async function stackDown(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  if (!fs.existsSync(cfg.stackDir)) {
    log(`nothing to stop (${cfg.stackDir} does not exist)`);
    return { stopped: 0 };
  }
  return withLock(cfg, async () => {
    const entries = [];
    // include node dirs beyond the saved count (a previous multi-node run)
    const cdir = path.join(cfg.stackDir, 'cassandra');
    const nodeDirs = fs.existsSync(cdir) ? fs.readdirSync(cdir).filter((d) => /^node\d+$/.test(d)) : [];
    for (const d of nodeDirs) {
      const i = Number(d.slice(4));
      const p = cassandraPaths(cfg, i);
      entries.push({ name: `cassandra node${i}`, pid: readPid(p.pidFile), marker: p.marker, pidFile: p.pidFile });
    }
    const kp = kafkaPaths(cfg);
    entries.push({ name: 'kafka', pid: readPid(kp.pidFile), marker: kp.marker, pidFile: kp.pidFile });
    const stopped = await stopPids(entries, log);
    if (!stopped) log('nothing was running');
    if (opts.purge) purgeDir(cfg, log);
    return { stopped };
  }, log);
}

function purgeDir(cfg, log) {
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

/** Stop Cassandra (all nodes, or opts.node). Kafka keeps running. */
async function stopCassandra(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  return withLock(cfg, async () => {
    const entries = nodeList(cfg, opts.node).map((i) => {
      const p = cassandraPaths(cfg, i);
      return { name: `cassandra node${i}`, pid: readPid(p.pidFile), marker: p.marker, pidFile: p.pidFile };
    });
    return { stopped: await stopPids(entries, log) };
  }, log);
}

/** Start Cassandra (all nodes, or opts.node) again with the saved config and wait for it. */
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

async function stopKafka(opts = {}) {
  const log = defaultLogger(opts);
  const cfg = effectiveConfig(opts);
  return withLock(cfg, async () => {
    const p = kafkaPaths(cfg);
    return { stopped: await stopPids([{ name: 'kafka', pid: readPid(p.pidFile), marker: p.marker, pidFile: p.pidFile }], log) };
  }, log);
}

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
 * Returns { up, stackDir, cassandra:{nodes:[{node,address,port,storagePort,pid,ready,release,error,dir,log}]}, kafka:{...}, endpoints }.
 */
async function status(opts = {}) {
  const cfg = effectiveConfig(opts);
  const probe = opts.probe !== false;
  const nodes = await Promise.all(
    nodeList(cfg).map(async (i) => {
      const p = cassandraPaths(cfg, i);
      const pid = cassandraPid(cfg, i);
      const address = nodeAddress(cfg, i);
      const r = probe ? await probeCassandra(address, cfg.cassandra.port) : { ok: null };
      return {
        node: i,
        address,
        port: cfg.cassandra.port,
        storagePort: cfg.cassandra.storagePort,
        pid,
        ready: r.ok,
        release: r.release,
        error: r.ok ? undefined : r.error,
        dir: p.dir,
        log: p.systemLog,
      };
    }),
  );
  const kp = kafkaPaths(cfg);
  const kpid = kafkaPid(cfg);
  const kr = probe ? await probeKafka(cfg.kafka.host, cfg.kafka.port) : { ok: null };
  const kafka = {
    host: cfg.kafka.host,
    port: cfg.kafka.port,
    controllerPort: cfg.kafka.controllerPort,
    pid: kpid,
    ready: kr.ok,
    clusterId: kr.clusterId,
    error: kr.ok ? undefined : kr.error,
    dir: kp.dir,
    log: kp.serverLog,
  };
  // up = usable: every endpoint answers (servers of another stack dir on the same ports count,
  // as they do for ensureStackUp). Without probing, fall back to our own pids.
  const up = probe
    ? nodes.every((n) => n.ready) && kafka.ready === true
    : nodes.every((n) => n.pid) && !!kafka.pid;
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

module.exports = {
  ensureStackUp,
  stackDown,
  stopCassandra,
  startCassandra,
  stopKafka,
  startKafka,
  status,
  // lower-level helpers (CLI, tests)
  resolveJars: (opts = {}) => {
    const cfg = configFromEnv(opts);
    const log = defaultLogger(opts);
    return { cassandra: resolveJars(cfg, 'cassandra', log), kafka: resolveJars(cfg, 'kafka', log) };
  },
  config: (opts = {}) => effectiveConfig(opts),
  endpoints: (opts = {}) => endpoints(effectiveConfig(opts)),
  findJava17,
  probeCassandra,
  probeKafka,
};
