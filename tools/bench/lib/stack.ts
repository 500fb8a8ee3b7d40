import { join } from 'path';
import { REPO_ROOT } from './gateway';

/** Where the local stack's Cassandra and Kafka listen, as `ensureStackUp()` reports them. */
export interface StackInfo {
  cassandra: { host: string; port: number; clientOptions: Record<string, unknown> };
  kafka: { brokers: string[] };
  /** True when this call started the stack (it was not running before). */
  startedByUs: boolean;
  stackDir?: string;
}

/** What `stack.status({ probe: true })` tells about the processes (pids may be absent). */
export interface StackStatus {
  cassandra?: {
    nodes?: { pid?: number | null; release?: string | null; memtables?: 'test' | 'default' }[];
  };
  kafka?: { pid?: number | null };
}

/** The part of the local stack's API (tools/stack, see LOCAL-STACK.md) that the benches use. */
export interface StackApi {
  ensureStackUp(opts: { quiet?: boolean; log?: (msg: string) => void }): Promise<StackInfo>;
  stackDown(opts: Record<string, unknown>): Promise<void>;
  status(opts: { probe: boolean }): Promise<StackStatus>;
  findJava17(): string | undefined;
  /** `nodetool <args>` against node 1 of the stack (tools/stack/nodetool.cjs); its output. */
  nodetool(args: string[], opts?: Record<string, unknown>): string;
}

/**
 * The local stack's API, loaded on first use. tools/stack is plain CommonJS outside every Nx
 * project, so it is required by path: the one place in the bench that knows where it lives.
 */
export function localStack(): StackApi {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(REPO_ROOT, 'tools', 'stack', 'index.cjs')) as StackApi;
}
