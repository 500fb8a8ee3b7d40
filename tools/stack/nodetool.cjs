// @ts-check
'use strict';
/**
 * `nodetool` against a Cassandra node of the local stack (e.g. `flush` and `compact` before a
 * measurement that must see compacted tables).
 *
 * The stack runs Cassandra without JMX (jvm.cjs). On first use, this opens a JMX connector inside
 * the running node through the JDK's attach mechanism (`jcmd <pid> ManagementAgent.start`): bound
 * to the node's own loopback address, on port storage + 10 (slot base + 80 for a test slot, free in
 * test-slots.cjs' layout), without authentication (loopback only, like Cassandra's LOCAL_JMX). The
 * connector lives as long as the node's process; `nodetool` is the one in cassandra-all's jars
 * (org.apache.cassandra.tools.NodeTool), run with the JDK 17 flags Cassandra needs.
 */

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { effectiveConfig, nodeAddress } = require('./config.cjs');
const { resolveJars } = require('./jars.cjs');
const { findJava17 } = require('./java.cjs');
const { CASSANDRA_JDK17_MODULE_FLAGS } = require('./jvm.cjs');
const { cassandraPid } = require('./processes.cjs');

/** @typedef {import('./config.cjs').StackOptions} StackOptions */

const QUIET_LOGBACK = `<configuration><appender name="E" class="ch.qos.logback.core.ConsoleAppender"><target>System.err</target>
<encoder><pattern>%msg%n</pattern></encoder></appender><root level="WARN"><appender-ref ref="E"/></root></configuration>\n`;

/**
 * @param {string} cmd
 * @param {string[]} args
 */
function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The JMX port of node `i`, opening the connector first if this node's JVM has none yet.
 * @param {ReturnType<typeof effectiveConfig>} cfg
 * @param {number} i
 */
function ensureJmx(cfg, i) {
  const pid = cassandraPid(cfg, i);
  if (pid === null) throw new Error(`cassandra node${i} does not run from ${cfg.stackDir}`);
  const host = nodeAddress(cfg, i);
  const port = cfg.cassandra.storagePort + 10;
  const jcmd = path.join(path.dirname(findJava17()), 'jcmd');
  const status = run(jcmd, [String(pid), 'ManagementAgent.status']);
  if (status.code !== 0) throw new Error(`jcmd ${pid} ManagementAgent.status: ${status.stdout}${status.stderr}`);
  if (!status.stdout.includes(`jmxremote.port = ${port}`)) {
    const opts = [`jmxremote.host=${host}`, `jmxremote.port=${port}`, `jmxremote.rmi.port=${port}`, 'jmxremote.authenticate=false', 'jmxremote.ssl=false'];
    const started = run(jcmd, [String(pid), 'ManagementAgent.start', ...opts]);
    if (started.code !== 0 || !/successfully/.test(started.stdout)) {
      throw new Error(`jcmd ${pid} ManagementAgent.start: ${started.stdout}${started.stderr}`);
    }
  }
  return { host, port };
}

/**
 * Runs `nodetool <args>` against node `opts.node` (default 1) of the stack; resolves with its
 * output, throws with it when nodetool fails.
 * @param {string[]} args e.g. ['compact', 'ks', 'object_folders']
 * @param {StackOptions} [opts]
 * @returns {string}
 */
function nodetool(args, opts = {}) {
  const cfg = effectiveConfig(opts);
  const i = opts.node ?? 1;
  const { host, port } = ensureJmx(cfg, i);
  const jars = resolveJars(cfg, 'cassandra');
  const logback = path.join(cfg.stackDir, 'cassandra', 'nodetool-logback.xml');
  fs.writeFileSync(logback, QUIET_LOGBACK);
  const r = run(findJava17(), [
    ...CASSANDRA_JDK17_MODULE_FLAGS,
    `-Dlogback.configurationFile=file://${logback}`,
    `-Duser.home=${path.join(cfg.stackDir, 'cassandra')}`,
    '-cp',
    `${jars}/*`,
    'org.apache.cassandra.tools.NodeTool',
    '-h',
    host,
    '-p',
    String(port),
    ...args,
  ]);
  if (r.code !== 0) throw new Error(`nodetool ${args.join(' ')} (node${i}) exited ${r.code}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

module.exports = { nodetool };
