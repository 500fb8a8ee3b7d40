/** Pending and running compactions of the stack's node, from `nodetool compactionstats` (undefined: could not ask). */
export function compactionsPending(output: string): number | undefined {
  const pending = /pending tasks:?\s*(\d+)/i.exec(output);
  if (!pending) return undefined;
  // each running compaction is a table row after the header line that starts with "id"
  const running = output.split('\n').filter((l) => /^\s*[0-9a-f]{8}-[0-9a-f]{4}-/i.test(l)).length;
  return Number(pending[1]) + running;
}
