import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { UsageDelta, usageDeltaOfMessage } from '@ostore/queue/contracts';
import { QueueBatch, QueueHandler } from '@ostore/queue/data-access';
import { ContextLogger, JsonLogger } from '@ostore/shared/observability';
import { StatsMetrics, UsageRecorder } from '@ostore/stats/data-access';

/**
 * The stats app's consumer of `s3-<cluster>-usage`, a handler on the queue transport (which owns
 * partitions and commits). A batch is decoded, recorded as a whole (events, then the aggregates of
 * the windows it touched), with its position in the partition (the local state trusts its sums
 * only while batches continue where it left off), and only then marked done: a crash or a failure hands the batch back,
 * and recording it again is harmless (UsageRecorder de-duplicates by event id). A message the
 * contract refuses can never be recorded: it is logged, counted, and marked done so that it does
 * not block its partition.
 */
@Controller()
export class UsageDeltasController {
  private readonly log: ContextLogger;

  constructor(
    @Inject(UsageRecorder) private readonly recorder: UsageRecorder,
    @Inject(StatsMetrics) private readonly metrics: StatsMetrics,
    @Inject(JsonLogger) logger: JsonLogger,
  ) {
    this.log = logger.forContext(UsageDeltasController.name);
  }

  @QueueHandler('usage')
  async usage(@Payload() batch: QueueBatch): Promise<void> {
    const deltas: UsageDelta[] = [];
    for (const m of batch.messages) {
      try {
        deltas.push(usageDeltaOfMessage(m.value));
      } catch (e) {
        this.metrics.invalid.inc();
        this.log.error('undecodable usage delta skipped', {
          partition: m.partition,
          offset: m.offset,
          error: (e as Error).message,
        });
      }
    }
    batch.signal.throwIfAborted();
    const first = batch.messages[0];
    const last = batch.messages[batch.messages.length - 1];
    await this.recorder.record(
      deltas,
      first ? { partition: batch.partition, firstOffset: first.offset, nextOffset: last.offset + 1 } : undefined,
    );
    for (const m of batch.messages) batch.done(m);
  }
}
