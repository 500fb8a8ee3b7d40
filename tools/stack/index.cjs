// @ts-check
'use strict';
/**
 * OStore local stack: Apache Cassandra 5.0 + Apache Kafka 3.9 (KRaft) started from Maven Central
 * jars with the JDK 17 `java`, no Docker. The public API; see ./README.md.
 *
 * CommonJS on purpose, so that the Jest global setup, `node tools/stack/stack.mjs` (the CLI, in
 * ./cli.cjs) and TypeScript run through swc all load it as it is, without a build step. Typed with
 * JSDoc, checked by `npm run typecheck` (tools/stack/tsconfig.json).
 *
 *   config.cjs        options/env -> config, stack.json, paths, endpoints
 *   up.cjs            ensureStackUp
 *   control.cjs       stackDown, stop/start Cassandra or Kafka, status
 *   processes.cjs     pid files, starting and stopping the JVMs
 *   jvm.cjs           JVM command lines        server-config.cjs  generated yaml/properties
 *   probes.cjs        readiness probes         jars.cjs           Maven resolution
 *   lock.cjs          lock dir per stack dir   java.cjs           finding JDK 17
 *   test-slots.cjs    the test runs' own stacks (ports, dirs, locks)
 *   nodetool.cjs      nodetool against a node (JMX opened on demand)
 */

const { configFromEnv, effectiveConfig, endpoints } = require('./config.cjs');
const { stackDown, startCassandra, startKafka, status, stopCassandra, stopKafka } = require('./control.cjs');
const { resolveJars } = require('./jars.cjs');
const { findJava17 } = require('./java.cjs');
const { probeCassandra, probeKafka } = require('./probes.cjs');
const { nodetool } = require('./nodetool.cjs');
const { signalProcessesSync } = require('./processes.cjs');
const { claimTestSlot } = require('./test-slots.cjs');
const { defaultLogger, ensureStackUp } = require('./up.cjs');

/** @typedef {import('./config.cjs').StackOptions} StackOptions */

module.exports = {
  ensureStackUp,
  stackDown,
  stopCassandra,
  startCassandra,
  stopKafka,
  startKafka,
  status,
  claimTestSlot,
  /**
   * SIGTERM to every server of the stack dir at once, without waiting (for exit handlers).
   * @param {StackOptions} [opts]
   */
  signalStackSync: (opts = {}) => signalProcessesSync(effectiveConfig(opts)),
  // lower-level helpers (CLI, tests)
  /** @param {StackOptions} [opts] */
  resolveJars: (opts = {}) => {
    const cfg = configFromEnv(opts);
    const log = defaultLogger(opts);
    return { cassandra: resolveJars(cfg, 'cassandra', log), kafka: resolveJars(cfg, 'kafka', log) };
  },
  /** @param {StackOptions} [opts] */
  config: (opts = {}) => effectiveConfig(opts),
  /** @param {StackOptions} [opts] */
  endpoints: (opts = {}) => endpoints(effectiveConfig(opts)),
  findJava17,
  nodetool,
  probeCassandra,
  probeKafka,
};
