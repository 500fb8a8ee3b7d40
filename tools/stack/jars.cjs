// @ts-check
'use strict';
/** Runtime jars of Cassandra and Kafka: resolved by Maven from Maven Central into a cache outside the repo. */

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { spawnSync } = require('child_process');
const { envStr, fmtSecs, mkdirp, readText } = require('./util.cjs');

/** @typedef {import('./config.cjs').StackConfig} StackConfig */
/** @typedef {'cassandra' | 'kafka'} Component */

/** @type {Record<Component, { pom: string, prop: string, mainJar: (v: string) => string }>} */
const MAVEN = {
  cassandra: { pom: path.join(__dirname, 'maven', 'cassandra', 'pom.xml'), prop: 'cassandra.version', mainJar: (v) => `cassandra-all-${v}.jar` },
  kafka: { pom: path.join(__dirname, 'maven', 'kafka', 'pom.xml'), prop: 'kafka.version', mainJar: (v) => `kafka_2.13-${v}.jar` },
};
const COMPLETE_MARKER = '.ostore-complete';

/**
 * @param {StackConfig} cfg
 * @param {Component} which
 */
function jarDir(cfg, which) {
  return path.join(cfg.jarCache, `${which}-${cfg[which].version}`);
}

/**
 * Fingerprint of what a cache folder was resolved from: the pom's text and the version.
 * @param {Component} which
 * @param {string} version
 */
function pomFingerprint(which, version) {
  return crypto.createHash('sha256').update(fs.readFileSync(MAVEN[which].pom)).update(`\0${version}`).digest('hex').slice(0, 16);
}

/**
 * Complete = marker present and written for the same pom + version (a pom edit re-resolves).
 * @param {string} dir
 * @param {string} fingerprint
 */
function jarsComplete(dir, fingerprint) {
  const t = readText(path.join(dir, COMPLETE_MARKER));
  if (t === null) return false;
  try {
    return !fingerprint || JSON.parse(t).pom === fingerprint;
  } catch {
    return false;
  }
}

/**
 * Resolve one component's runtime jars with Maven unless the cache folder is complete.
 * @param {StackConfig} cfg
 * @param {Component} which
 * @param {(msg: string) => void} [log]
 * @returns {string} the folder holding the jars
 */
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
    ['-q', '-B', '-f', spec.pom, `-D${spec.prop}=${version}`, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${tmp}`],
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

module.exports = { resolveJars };
