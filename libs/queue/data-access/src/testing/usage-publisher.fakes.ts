import { UsageDelta } from '@ostore/queue/contracts';
import { KeyedMessage, PublisherTimers, UsageDeltaSink } from '../usage/usage-delta.publisher';

/** Lets every pending promise callback run. */
export const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** Timers that fire only when the spec moves their time. */
export class ManualTimers implements PublisherTimers {
  now = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  set(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves time by `ms`, firing due timers in time order and letting promises settle after each. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await settle();
      const due = [...this.pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = end;
    await settle();
  }
}

/** A producer that records batches, and can be made to fail or to hold a send open. */
export class FakeUsageSink implements UsageDeltaSink {
  readonly batches: KeyedMessage[][] = [];
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  failing = false;
  private gate?: { promise: Promise<void>; open: () => void };

  hold(): void {
    let open!: () => void;
    this.gate = { promise: new Promise<void>((r) => (open = r)), open };
  }

  release(): void {
    const gate = this.gate;
    this.gate = undefined;
    gate?.open();
  }

  async send(messages: readonly KeyedMessage[]): Promise<void> {
    this.calls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.gate) await this.gate.promise;
      if (this.failing) throw new Error('broker down');
      this.batches.push([...messages]);
    } finally {
      this.inFlight--;
    }
  }

  get deltas(): UsageDelta[] {
    return this.batches.flat().map((m) => UsageDelta.fromMessage(m.value));
  }
}
