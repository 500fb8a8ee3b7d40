/** One schema version: statements applied in order, each idempotent on its own (IF NOT EXISTS). */
export interface Migration {
  version: number;
  name: string;
  /** CQL statements; `{ks}` stands for the keyspace name. */
  statements: string[];
}

export interface Replication {
  class: 'SimpleStrategy' | 'NetworkTopologyStrategy';
  /** SimpleStrategy: {replication_factor: n}; NetworkTopologyStrategy: {dc: n, ...}. */
  factors: Record<string, number>;
}

/**
 * Parses `SimpleStrategy:1` or `NetworkTopologyStrategy:dc1=3,dc2=3`.
 * Throws with a precise message on anything else.
 */
export function parseReplication(spec: string): Replication {
  const [cls, rest = ''] = spec.split(':', 2);
  if (cls === 'SimpleStrategy') {
    const rf = Number(rest);
    if (!Number.isInteger(rf) || rf < 1)
      throw new Error(
        `SimpleStrategy needs a replication factor >= 1, e.g. SimpleStrategy:1 (got "${spec}")`,
      );
    return { class: 'SimpleStrategy', factors: { replication_factor: rf } };
  }
  if (cls === 'NetworkTopologyStrategy') {
    const factors: Record<string, number> = {};
    for (const part of rest.split(',').filter(Boolean)) {
      const [dc, n] = part.split('=');
      const rf = Number(n);
      if (!dc || !/^[A-Za-z0-9_-]+$/.test(dc) || !Number.isInteger(rf) || rf < 1) {
        throw new Error(
          `NetworkTopologyStrategy needs dc=rf pairs, e.g. NetworkTopologyStrategy:dc1=3 (got "${spec}")`,
        );
      }
      factors[dc] = rf;
    }
    if (Object.keys(factors).length === 0)
      throw new Error(`NetworkTopologyStrategy needs at least one dc=rf pair (got "${spec}")`);
    return { class: 'NetworkTopologyStrategy', factors };
  }
  throw new Error(
    `replication must be SimpleStrategy:<rf> or NetworkTopologyStrategy:<dc>=<rf>,... (got "${spec}")`,
  );
}

export function replicationCql(r: Replication): string {
  const entries = [`'class': '${r.class}'`, ...Object.entries(r.factors).map(([k, v]) => `'${k}': ${v}`)];
  return `{${entries.join(', ')}}`;
}

const KEYSPACE_RE = /^[a-z][a-z0-9_]{0,47}$/;
export function assertKeyspaceName(ks: string): void {
  if (!KEYSPACE_RE.test(ks)) throw new Error(`keyspace name must match ${KEYSPACE_RE} (got "${ks}")`);
}
