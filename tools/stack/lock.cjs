// @ts-check
'use strict';
/** A lock dir per stack dir, so that two stack commands (e.g. parallel Jest runs) never overlap. */

const fs = require('fs');
const path = require('path');
const { mkdirp, pidAlive, readPid, sleep } = require('./util.cjs');

/**
 * Tries once to take the lock dir `lock` for this process. False while a live process holds it;
 * a lock whose holder died (or that has no pid after a few seconds) is taken over.
 * @param {string} lock
 */
function tryLock(lock) {
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      return true;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST') throw e;
      if (!lockIsStale(lock)) return false;
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** @param {string} lock */
function lockHolder(lock) {
  return readPid(path.join(lock, 'pid'));
}

/** @param {string} lock */
function lockIsStale(lock) {
  const holder = lockHolder(lock);
  if (holder !== null) return !pidAlive(holder);
  // lock dir without pid: stale if older than a few seconds
  try {
    return Date.now() - fs.statSync(lock).mtimeMs > 5000;
  } catch {
    return true;
  }
}

/**
 * Runs `fn` holding the stack dir's lock, waiting for it up to the stack timeout + 60 s.
 * @template T
 * @param {{ stackDir: string, timeoutSec: number }} cfg
 * @param {() => Promise<T>} fn
 * @param {(msg: string) => void} log
 * @returns {Promise<T>}
 */
async function withLock(cfg, fn, log) {
  mkdirp(cfg.stackDir);
  const lock = path.join(cfg.stackDir, '.lock');
  const deadline = Date.now() + (cfg.timeoutSec + 60) * 1000;
  let said = false;
  while (!tryLock(lock)) {
    const holder = lockHolder(lock);
    if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${lock} (held by pid ${holder})`);
    if (!said) {
      log(`another stack command (pid ${holder}) is running in ${cfg.stackDir}; waiting ...`);
      said = true;
    }
    await sleep(500);
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

module.exports = { withLock, tryLock };
