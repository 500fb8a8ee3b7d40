import { open, mkdir, readdir, readFile, rename, unlink } from 'fs/promises';
import { join } from 'path';
import { Clock } from '@ostore/shared/clock';
import { KeyedMessage } from './usage-delta.message';

/** One stored batch of deltas waiting to be sent again. */
export interface SpooledSegment {
  id: string;
  messages: KeyedMessage[];
}

/** Durable storage of usage deltas the publisher could not hand to Kafka in time. */
export interface UsageDeltaSpool {
  /** Stores the messages as one segment; resolves once they are on disk (fsync), rejects if they may not be. */
  append(messages: readonly KeyedMessage[]): Promise<void>;
  /** The oldest segment, if any. */
  oldest(): Promise<SpooledSegment | undefined>;
  /** Removes a segment whose messages were all sent (a segment already gone is fine). */
  remove(id: string): Promise<void>;
  /** Deltas in the spool's segments now (including one being sent again). */
  pending(): Promise<number>;
}

/**
 * A spool of segment files in one directory: `<time>-<pid>-<seq>.jsonl`, one encoded delta per
 * line, written to a temporary name, fsync'd, then renamed (a crash leaves a whole segment or
 * none). Read oldest first. Sending a segment twice (a crash after the send, before the removal;
 * two processes sharing the directory) only produces duplicates, which stats drop by event id.
 */
export class FileUsageDeltaSpool implements UsageDeltaSpool {
  private seq = 0;
  /** Deltas per segment file seen by `pending()` or written here (each file is read at most once to count it). */
  private readonly counted = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
  ) {}

  async append(messages: readonly KeyedMessage[]): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const name = `${String(this.clock.nowMs()).padStart(15, '0')}-${process.pid}-${String(++this.seq).padStart(9, '0')}.jsonl`;
    const tmp = join(this.dir, `.${name}.tmp`);
    const file = await open(tmp, 'w');
    try {
      await file.writeFile(messages.map((m) => JSON.stringify([m.key, m.value])).join('\n') + '\n');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, join(this.dir, name));
    this.counted.set(name, messages.length);
  }

  async oldest(): Promise<SpooledSegment | undefined> {
    for (const id of await this.segments()) {
      const text = await readFile(join(this.dir, id), 'utf8').catch(() => undefined);
      if (text === undefined) continue; // removed meanwhile by another process
      const messages = text
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [key, value] = JSON.parse(line) as [string, string];
          return { key, value };
        });
      this.counted.set(id, messages.length);
      return { id, messages };
    }
    return undefined;
  }

  async pending(): Promise<number> {
    const ids = await this.segments();
    const present = new Set(ids);
    for (const id of this.counted.keys()) if (!present.has(id)) this.counted.delete(id);
    let total = 0;
    for (const id of ids) {
      let n = this.counted.get(id);
      if (n === undefined) {
        const text = await readFile(join(this.dir, id), 'utf8').catch(() => '');
        this.counted.set(id, (n = text.split('\n').filter(Boolean).length));
      }
      total += n;
    }
    return total;
  }

  /** The segment files, oldest first. */
  private async segments(): Promise<string[]> {
    const names = await readdir(this.dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [] as string[];
      throw e;
    });
    return names.filter((n) => n.endsWith('.jsonl')).sort();
  }

  async remove(id: string): Promise<void> {
    await unlink(join(this.dir, id)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    this.counted.delete(id);
  }
}
