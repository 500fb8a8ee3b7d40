// @ts-check
// The last resort against a run that never ends: once the global teardown is done, Jest should
// exit by itself. If something a spec left open (a child process, a socket, a server) still keeps
// it alive after a grace period, say what it is, kill the child processes and exit.
const { warn } = require('./run-state.js');

/**
 * One line about an open handle of this process.
 * @param {any} h
 * @returns {string}
 */
function describeHandle(h) {
  const kind = h?.constructor?.name ?? typeof h;
  if (kind === 'ChildProcess') return `child process pid ${h.pid}: ${(h.spawnargs ?? []).join(' ').slice(0, 200)}`;
  if (kind === 'Socket' || kind === 'TLSSocket') return `socket ${h.localAddress}:${h.localPort} -> ${h.remoteAddress}:${h.remotePort}`;
  if (kind === 'Server') return `server listening on ${JSON.stringify(h.address?.())}`;
  return kind;
}

/** Open handles, without this process's own stdio. */
function openHandles() {
  const all = /** @type {{ _getActiveHandles?: () => any[] }} */ (/** @type {unknown} */ (process))._getActiveHandles?.() ?? [];
  return all.filter((h) => h !== process.stdin && h !== process.stdout && h !== process.stderr);
}

/**
 * Arms the watchdog; it does not keep the process alive itself.
 * @param {number} graceMs
 */
function armExitWatchdog(graceMs) {
  const timer = setTimeout(() => {
    const handles = openHandles();
    warn(
      `FORCED EXIT: Jest had not exited ${graceMs / 1000} s after the last spec and the global teardown. ` +
        `Still open:\n  ${handles.map(describeHandle).join('\n  ') || '(no handles; ' + process.getActiveResourcesInfo().join(', ') + ')'}`,
    );
    for (const h of handles) if (h?.constructor?.name === 'ChildProcess') h.kill('SIGKILL');
    process.exit();
  }, graceMs);
  timer.unref();
}

module.exports = { armExitWatchdog, describeHandle };
