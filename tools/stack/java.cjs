// @ts-check
'use strict';
/** Finding a JDK 17 `java`: Cassandra 5.0 runs on 11/17 only, never on 21/25. */

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { readText } = require('./util.cjs');

const JDK17_FALLBACK = '/usr/lib/jvm/java-17-openjdk-amd64/bin/java';

/**
 * Major version of a `java` binary, or null when it cannot be told.
 * @param {string} javaBin
 * @returns {number | null}
 */
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

/** @type {string | null} */
let cachedJava = null;

/**
 * Absolute path of a JDK 17 `java`: OSTORE_JAVA, else $JAVA_HOME/bin/java if it is 17, else the
 * Debian default, else any JDK 17 under /usr/lib/jvm.
 * @returns {string}
 */
function findJava17() {
  if (cachedJava) return cachedJava;
  const candidates = [];
  const explicit = process.env.OSTORE_JAVA;
  if (explicit) {
    if (javaMajorOf(explicit) !== 17) throw new Error(`OSTORE_JAVA=${explicit} is not a Java 17 runtime`);
    return (cachedJava = explicit);
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

module.exports = { findJava17 };
