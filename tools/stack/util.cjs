// @ts-check
'use strict';
/** Small helpers of the local stack: env parsing, files, pids, sockets. */

const fs = require('fs');
const net = require('net');

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * An integer from the environment, or `def` when unset or empty.
 * @param {string} name
 * @param {number} def
 */
function envInt(name, def) {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n) || String(n) !== v.trim()) throw new Error(`${name}=${v} is not an integer`);
  return n;
}

/**
 * A string from the environment, or `def` when unset or empty.
 * @param {string} name
 * @param {string} def
 */
function envStr(name, def) {
  const v = process.env[name];
  return v === undefined || v === '' ? def : v;
}

/** @param {string} p */
function mkdirp(p) {
  fs.mkdirSync(p, { recursive: true });
}

/**
 * The file's text, or null when it cannot be read.
 * @param {string} p
 * @returns {string | null}
 */
function readText(p) {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

/**
 * @param {string} p
 * @param {string} text
 */
function writeIfChanged(p, text) {
  if (readText(p) !== text) fs.writeFileSync(p, text);
}

/**
 * The last `lines` lines of a file, for error messages.
 * @param {string} file
 * @param {number} [lines]
 */
function tail(file, lines = 25) {
  const t = readText(file);
  if (t === null) return `(no ${file})`;
  return t.split('\n').slice(-lines - 1).join('\n');
}

/** @param {number} ms */
function fmtSecs(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * The first line of an error's message.
 * @param {unknown} e
 */
function errorLine(e) {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

/**
 * Is `pid` alive and (on Linux) really the process we started (marker in its cmdline)?
 * @param {number | null | undefined} pid
 * @param {string} [marker]
 * @returns {pid is number}
 */
function pidAlive(pid, marker) {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EPERM') return false;
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

/**
 * The pid written in a pid file, or null.
 * @param {string} file
 * @returns {number | null}
 */
function readPid(file) {
  const t = readText(file);
  if (t === null) return null;
  const n = Number.parseInt(t.trim(), 10);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * Does something accept TCP connections on host:port?
 * @param {string} host
 * @param {number} port
 * @param {number} [timeoutMs]
 * @returns {Promise<boolean>}
 */
function portOpen(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    /** @param {boolean} ok */
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

/**
 * Can we bind host:port right now? (false = something else holds it)
 * @param {string} host
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function portFree(host, port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

module.exports = { sleep, envInt, envStr, mkdirp, readText, writeIfChanged, tail, fmtSecs, errorLine, pidAlive, readPid, portOpen, portFree };
