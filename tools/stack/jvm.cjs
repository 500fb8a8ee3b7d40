// @ts-check
'use strict';
/** JVM command lines of the servers, and starting a JVM detached from this process. */

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { spawn } = require('child_process');
const { cassandraPaths, kafkaPaths } = require('./config.cjs');
const { mkdirp } = require('./util.cjs');

/** @typedef {import('./config.cjs').StackConfig} StackConfig */

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

/**
 * The `java` arguments of Cassandra node `i`.
 * @param {StackConfig} cfg
 * @param {number} i
 * @param {string} jars folder of the resolved jars
 */
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
    // Shared-pool workers keep one name: by default each renames itself (a prctl syscall) whenever
    // it moves to another stage, so per-thread CPU samples (bench analyses) were credited to the
    // wrong stage. Only names change; Cassandra's work does not.
    '-Dcassandra.set_sep_thread_name=false',
    '-Dcassandra.libjemalloc=-',
    // no -Dcassandra.jmx.*port: JMX stays off
    '-cp',
    `${jars}/*`,
    'org.apache.cassandra.service.CassandraDaemon',
  ];
}

/**
 * The `java` arguments of the Kafka broker.
 * @param {StackConfig} cfg
 * @param {string} jars folder of the resolved jars
 */
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

/**
 * Starts a JVM that outlives this process, its output appended to `stdoutLog`; returns its pid.
 * @param {string} java
 * @param {string[]} args
 * @param {string} cwd
 * @param {string} stdoutLog
 * @returns {number}
 */
function spawnDetached(java, args, cwd, stdoutLog) {
  mkdirp(path.dirname(stdoutLog));
  const cmdFile = path.join(cwd, 'java-command.txt');
  fs.writeFileSync(cmdFile, [java, ...args].join(' \\\n  ') + '\n');
  const fd = fs.openSync(stdoutLog, 'a');
  fs.writeSync(fd, `\n===== ${new Date().toISOString()} starting java (command line: ${cmdFile})\n`);
  try {
    const child = spawn(java, args, { cwd, detached: true, stdio: ['ignore', fd, fd], env: process.env });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${java}`);
    return child.pid;
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { CASSANDRA_JDK17_MODULE_FLAGS, cassandraArgs, kafkaArgs, newKafkaClusterId, spawnDetached };
