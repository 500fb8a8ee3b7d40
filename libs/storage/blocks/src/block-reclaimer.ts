import type { Counter } from 'prom-client';
import type { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import type { BlockLifecycleSettings } from './block-lifecycle.settings';
import type { BlockStores } from './block-store';
import { BlockContentionError } from './errors';
import { BlockState, BlockStateRepository } from './state/block-state.repository';

export type ReclaimReason = 'released' | 'discarded' | 'gc';

/** What `reclaim` found and did. */
export type ReclaimOutcome =
  /** Bytes and status removed now (or finished for a deleter that died). */
  | 'reclaimed'
  /** The block has a reference: kept. */
  | 'referenced'
  /** Still 'writing' and not old enough for this policy: kept. */
  | 'in-flight'
  /** No status and no bytes: nothing to do (already deleted, or never written). */
  | 'absent';

export interface ReclaimPolicy {
  reason: ReclaimReason;
  /** Reclaim 'writing' blocks created at or before this instant (ms); undefined: never. */
  writingCreatedBefore?: number;
  /**
   * Take an absent status as "already deleted" without asking the store. Only for callers that
   * recorded a GC candidate before touching the block (releaseRefs), so a leftover is still found.
   */
  trustAbsent: boolean;
}

/** The block the caller believes in, used when the status row can no longer tell tier or size. */
export interface BlockHint {
  blockId: string;
  tier: string;
  size: number;
  createdAt?: Date;
}

/**
 * The one place that deletes a block: shared by releaseRefs, discard and the GC, so that every
 * path follows the same protocol:
 *   1. SERIAL read of status + first reference;
 *   2. compare-and-set to 'deleting' (on the version read: fails if a reference was added since,
 *      and then we start over), or claim an untrusted row (IF is_alive = null);
 *   3. delete the bytes;  4. delete the status IF still at the 'deleting' version.
 * A reference can only be added to a trusted 'writing'/'committed' status at an unchanged
 * version, so once step 2 applied no reference can appear: no dangling reference is possible.
 * A deleter dying between 2 and 4 leaves a TTL'd 'deleting' status and a GC candidate; any later
 * pass finishes the job (steps 3 and 4 are idempotent).
 */
export class BlockReclaimer {
  private readonly log: ContextLogger;
  private readonly deleted: Counter<'tier' | 'reason'>;
  private readonly deletedBytes: Counter<'tier' | 'reason'>;
  private readonly conflicts: Counter<'op'>;

  constructor(
    private readonly repo: BlockStateRepository,
    private readonly stores: BlockStores,
    private readonly settings: BlockLifecycleSettings,
    metrics: MetricsRegistry,
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(BlockReclaimer.name);
    this.deleted = metrics.counter('ostore_blocks_deleted_total', 'Blocks whose bytes were deleted', [
      'tier',
      'reason',
    ]);
    this.deletedBytes = metrics.counter('ostore_block_deleted_bytes_total', 'Bytes of deleted blocks', [
      'tier',
      'reason',
    ]);
    this.conflicts = metrics.counter(
      'ostore_block_cas_conflicts_total',
      'Lost compare-and-set rounds on block status (retried)',
      ['op'],
    );
  }

  /** Counts a lost compare-and-set of `op` (shared with the manager's commit path). */
  conflict(op: string): void {
    this.conflicts.inc({ op });
  }

  private holdsAnyBytes(tier: string, blockId: string): Promise<boolean> {
    const store = this.stores.get(tier);
    return store.holdsAnyBytes ? store.holdsAnyBytes(blockId) : store.exists(blockId);
  }

  /** Deletes the block if nothing references it and the policy allows; idempotent. */
  async reclaim(hint: BlockHint, policy: ReclaimPolicy): Promise<ReclaimOutcome> {
    for (let attempt = 0; attempt < this.settings.casAttempts; attempt++) {
      const read = await this.repo.read(hint.blockId);
      let deleting: BlockState | undefined;
      if (read.kind === 'alive') {
        const s = read.state;
        if (s.status === 'deleting') {
          deleting = s; // a deleter died or is racing us: finishing is idempotent
        } else if (s.firstRef !== undefined) {
          return 'referenced';
        } else if (
          s.status === 'writing' &&
          !(policy.writingCreatedBefore !== undefined && s.createdAt.getTime() <= policy.writingCreatedBefore)
        ) {
          return 'in-flight';
        } else {
          deleting = await this.repo.markDeleting(s, this.settings.inFlightTtlSeconds);
        }
      } else {
        if (read.kind === 'broken' && read.hasRef) {
          // Impossible by construction (references are only added to a committed, untimed status);
          // refuse to delete rather than create a dangling reference, and say so loudly.
          this.log.error('block has references but no trusted status; not deleting', {
            blockId: hint.blockId,
          });
          return 'referenced';
        }
        const tier = (read.kind === 'broken' && read.tier) || hint.tier;
        if (
          read.kind === 'absent' &&
          (policy.trustAbsent || !(await this.holdsAnyBytes(tier, hint.blockId)))
        ) {
          return 'absent';
        }
        deleting = await this.repo.claimUntrusted(
          hint.blockId,
          {
            tier,
            size: (read.kind === 'broken' && read.size) || hint.size,
            createdAt: hint.createdAt ?? new Date(0),
          },
          this.settings.inFlightTtlSeconds,
        );
      }
      if (!deleting) {
        this.conflicts.inc({ op: 'delete' });
        continue;
      }
      await this.finish(deleting, policy.reason);
      return 'reclaimed';
    }
    throw new BlockContentionError(hint.blockId, this.settings.casAttempts);
  }

  /**
   * Steps 3-4 for a block this caller moved to 'deleting' (here, or in one compare-and-set with
   * the release of its last reference: `BlockStateRepository.releaseLastRef`).
   */
  async finish(deleting: BlockState, reason: ReclaimReason): Promise<void> {
    await this.stores.get(deleting.tier).delete(deleting.blockId);
    // Lost only if another deleter finished first (same bytes gone, status removed): fine either way.
    await this.repo.forget(deleting.blockId, deleting.version);
    this.deleted.inc({ tier: deleting.tier, reason });
    this.deletedBytes.inc({ tier: deleting.tier, reason }, deleting.size);
    this.log.debug('block deleted', { blockId: deleting.blockId, tier: deleting.tier, reason });
  }
}
