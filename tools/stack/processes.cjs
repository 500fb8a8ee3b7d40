// @ts-check
'use strict';
/** The servers' processes: which run (pid files + marker), starting them, stopping them. */

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { cassandraPaths, kafkaPaths, nodeAddress } = require('./config.cjs');
const { findJava17 } = require('./java.cjs');
const { cassandraArgs, kafkaArgs, newKafkaClusterId, spawnDetached } = require('./jvm.cjs');
const { cassandraLogback, cassandraYaml, kafkaLog4j, kafkaProperties } = require('./server-config.cjs');
const { fmtSecs, mkdirp, pidAlive, portFree, readPid, readText, sleep, writeIfChanged } = require('./util.cjs');

/** @typedef {import('./config.cjs').StackConfig} StackConfig */
/** @typedef {(msg: string) => void} Log */
/** @typedef {{ name: string, pid: number | null, marker: string, pidFile?: string }} ProcessEntry */

/**
 * The pid of Cassandra node `i` if it runs from this stack dir, else null.
 * @param {StackConfig} cfg
 * @param {number} i
 */
function cassandraPid(cfg, i) {
  const p = cassandraPaths(cfg, i);
  const pid = readPid(p.pidFile);
  return pidAlive(pid, p.marker) ? pid : null;
}

/**
 * The pid of the Kafka broker if it runs from this stack dir, else null.
 * @param {StackConfig} cfg
 */
function kafkaPid(cfg) {
  const p = kafkaPaths(cfg);
  const pid = readPid(p.pidFile);
  return pidAlive(pid, p.marker) ? pid : null;
}

/**
 * @param {string} host
 * @param {number} port
 * @param {string} what
 */
async function ensureFree(host, port, what) {
  if (!(await portFree(host, port))) {
    throw new Error(`${what}: ${host}:${port} is already in use by another process (not started by this stack dir)`);
  }
}

/**
 * @param {StackConfig} cfg
 * @param {number} i
 * @param {string} jars
 * @param {Log} log
 */
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

/**
 * @param {StackConfig} cfg
 * @param {string} jars
 * @param {Log} log
 */
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

/**
 * @param {StackConfig} cfg
 * @param {string} jars
 * @param {Log} log
 */
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

/**
 * The processes of Cassandra nodes (all node dirs found, or `nodes`) and of Kafka, as pid files say.
 * @param {StackConfig} cfg
 * @param {{ nodes?: number[], kafka?: boolean }} [which]
 * @returns {ProcessEntry[]}
 */
function stackProcesses(cfg, which = {}) {
  const cdir = path.join(cfg.stackDir, 'cassandra');
  // node dirs beyond the saved count count too (a previous multi-node run)
  const nodes =
    which.nodes ??
    (fs.existsSync(cdir) ? fs.readdirSync(cdir).filter((d) => /^node\d+$/.test(d)).map((d) => Number(d.slice(4))) : []);
  /** @type {ProcessEntry[]} */
  const entries = nodes.map((i) => {
    const p = cassandraPaths(cfg, i);
    return { name: `cassandra node${i}`, pid: readPid(p.pidFile), marker: p.marker, pidFile: p.pidFile };
  });
  if (which.kafka !== false) {
    const kp = kafkaPaths(cfg);
    entries.push({ name: 'kafka', pid: readPid(kp.pidFile), marker: kp.marker, pidFile: kp.pidFile });
  }
  return entries;
}

/**
 * SIGTERM, wait, SIGKILL after graceMs. Resolves with how many were running once all are gone.
 * @param {ProcessEntry[]} entries
 * @param {Log} log
 * @param {number} [graceMs]
 */
async function stopPids(entries, log, graceMs = 45000) {
  /** @type {(ProcessEntry & { pid: number })[]} */
  const live = [];
  for (const e of entries) if (pidAlive(e.pid, e.marker)) live.push({ ...e, pid: e.pid });
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
 * Sends `signal` at once to every server of this stack dir that runs, without waiting: for exit
 * handlers, where nothing asynchronous runs any more. Returns the pids signalled.
 * @param {StackConfig} cfg
 * @param {NodeJS.Signals} [signal]
 */
function signalProcessesSync(cfg, signal = 'SIGTERM') {
  const pids = [];
  for (const e of stackProcesses(cfg)) {
    if (!pidAlive(e.pid, e.marker)) continue;
    try {
      process.kill(e.pid, signal);
      pids.push(e.pid);
    } catch {
      /* gone */
    }
  }
  return pids;
}

module.exports = {
  cassandraPid,
  kafkaPid,
  ensureFree,
  startCassandraNode,
  startKafkaProcess,
  stackProcesses,
  stopPids,
  signalProcessesSync,
};
