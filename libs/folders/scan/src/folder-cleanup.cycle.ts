import type { ScanLog, TokenSpan } from '@ostore/lifecycle/scan';
import {
  estimatedElements,
  estimatedFpr,
  FilterGeneration,
  filterSkipOf,
  fillRatio,
  isSaturated,
  nextCapacity,
  SaturationSettings,
  shapeFor,
} from '@ostore/folders/cleanup';
import { CleanupPassStat, FolderFilterRepository } from '@ostore/metastore/data-access';
import type { Clock } from '@ostore/shared/clock';
import { FilterBuildJob } from './filter-build.job';
import { ScannerFolderMetrics } from './folder-cleanup.metrics';
import { FolderScanJob } from './folder-scan.job';

/** The cleanup's constants (see the scanner's FOLDER_* variables). */
export interface FolderCleanupSettings extends SaturationSettings {
  /** This scanner's identity (its rows in the filter tables). */
  readonly source: string;
  /** Time from the opening of one generation to the next (at the earliest: see FolderCleanupCycle). */
  readonly intervalMs: number;
  /** A generation whose filter became complete longer ago than this is not used (stale). */
  readonly maxAgeMs: number;
}

/** Where this scanner's node stands in the ring right now. */
export interface LocalRing {
  readonly spans: readonly TokenSpan[];
  /** Nodes that are a primary replica of some range: the hosts whose filters must all be complete. */
  readonly expectedHosts: number;
}

/** What one tick did. */
export type TickOutcome =
  | { readonly kind: 'built'; readonly generation: number }
  | { readonly kind: 'waiting'; readonly generation: number }
  | { readonly kind: 'scanned'; readonly generation: number; readonly stat: CleanupPassStat }
  | { readonly kind: 'skipped'; readonly generation: number; readonly reason: string }
  | { readonly kind: 'idle'; readonly generation: number }
  | { readonly kind: 'stopped' };

/**
 * One step of the empty-directory cleanup of one scanner (seed 000), safe to repeat:
 *
 * 1. When the newest generation is older than the interval (or there is none), open the next one
 *    (compare-and-set, so all scanners agree on its shape), unless this scanner has completed its
 *    build of the newest one and not judged it yet: a build slower than the interval still gets
 *    its pass instead of being overtaken by the next generation forever. The next one is sized
 *    from what the last one saw:
 *    the directories the folder scans counted, or the elements its combined filter held when it
 *    saturated (resized, never used).
 * 2. Build this host's filter of the newest generation unless it is complete.
 * 3. Once every host's filter is complete, scan the folder tables against their OR, once per
 *    generation; a missing, stale or saturated filter makes the pass skip, recorded with its
 *    reason; it never publishes a deletion.
 */
export class FolderCleanupCycle {
  constructor(
    private readonly repo: FolderFilterRepository,
    private readonly build: FilterBuildJob,
    private readonly scan: FolderScanJob,
    private readonly settings: FolderCleanupSettings,
    private readonly clock: Clock,
    private readonly metrics: ScannerFolderMetrics,
    private readonly log: ScanLog,
  ) {}

  async tick(ring: LocalRing, signal: AbortSignal): Promise<TickOutcome> {
    const s = this.settings;
    const generation = await this.currentGeneration();
    const g = generation.generation;
    this.metrics.generation.set(g);
    this.metrics.generationAge.set((this.clock.nowMs() - generation.createdAt.getTime()) / 1000);

    let hosts = await this.repo.hosts(g);
    if (!hosts.some((h) => h.source === s.source && h.complete)) {
      const built = await this.build.build(generation, s.source, ring.spans, signal);
      if (!built) return { kind: 'stopped' };
      return { kind: 'built', generation: g };
    }
    if ((await this.repo.passes(g)).some((p) => p.source === s.source)) return { kind: 'idle', generation: g };

    hosts = hosts.filter((h) => h.complete);
    const skip = filterSkipOf(generation, hosts, this.clock.nowMs(), { expectedHosts: ring.expectedHosts, maxAgeMs: s.maxAgeMs });
    if (skip === 'incomplete') return { kind: 'waiting', generation: g };
    if (skip) return this.skipped(g, { checked: 0, foundEmpty: 0, published: 0, skipped: skip });

    const filter = await this.scan.combinedFilter(generation, hosts);
    const fill = fillRatio(filter.setBits(), generation.shape);
    const health = {
      fillRatio: fill,
      estimatedFpr: estimatedFpr(fill, generation.shape),
      estimatedElements: estimatedElements(fill, generation.shape),
    };
    this.metrics.fillRatio.set(health.fillRatio);
    this.metrics.estimatedFpr.set(health.estimatedFpr);
    if (isSaturated(fill, generation.shape, s)) {
      const elements = Number.isFinite(health.estimatedElements) ? health.estimatedElements : generation.capacity * 4;
      return this.skipped(g, { checked: 0, foundEmpty: 0, published: 0, skipped: 'saturated', ...health, estimatedElements: elements });
    }
    const stat = await this.scan.scan(filter, g, ring.spans, signal);
    if (!stat) return { kind: 'stopped' };
    const done = { ...stat, ...health };
    await this.repo.savePass({ generation: g, source: s.source, stat: done, finishedAt: this.clock.now() });
    this.metrics.passes.inc({ outcome: 'completed' });
    this.log.info('folder scan completed', { generation: g, ...done });
    return { kind: 'scanned', generation: g, stat: done };
  }

  /** The newest generation, opening the next one first when it is due. */
  private async currentGeneration(): Promise<FilterGeneration> {
    const s = this.settings;
    const latest = await this.repo.latestGeneration();
    if (latest && this.clock.nowMs() - latest.createdAt.getTime() < s.intervalMs) return latest;
    const passes = latest ? await this.repo.passes(latest.generation) : [];
    if (latest && !passes.some((p) => p.source === s.source) && (await this.repo.hosts(latest.generation)).some((h) => h.source === s.source && h.complete)) {
      return latest; // built but not judged yet (a build slower than the interval, or waiting for another host)
    }
    const counted = passes.reduce((n, p) => n + p.stat.checked, 0);
    const held = Math.max(0, ...passes.map((p) => p.stat.estimatedElements ?? 0));
    // a generation no pass judged (stale, incomplete) says nothing about size: keep its capacity
    const kept = latest && counted === 0 && held === 0 ? latest.capacity : 0;
    const capacity = Math.max(kept, nextCapacity(s, counted, latest && held > 0 ? { estimatedElements: held, capacity: latest.capacity } : undefined));
    const number = (latest?.generation ?? 0) + 1;
    const next: FilterGeneration = {
      generation: number,
      // salted by its number: each generation's false positives are other directories
      shape: { ...shapeFor(capacity, s.fpr), salt: number },
      capacity,
      fpr: s.fpr,
      createdAt: this.clock.now(),
    };
    if (await this.repo.openGeneration(next)) this.log.info('folder filter generation opened', { generation: next.generation, capacity, bits: next.shape.bits, hashes: next.shape.hashes, salt: next.shape.salt });
    const opened = await this.repo.latestGeneration();
    if (!opened) throw new Error('no folder filter generation after opening one');
    return opened;
  }

  private async skipped(generation: number, stat: CleanupPassStat): Promise<TickOutcome> {
    await this.repo.savePass({ generation, source: this.settings.source, stat, finishedAt: this.clock.now() });
    this.metrics.passes.inc({ outcome: stat.skipped! });
    this.log.warn('folder scan skipped', { generation, reason: stat.skipped, fillRatio: stat.fillRatio, estimatedFpr: stat.estimatedFpr });
    return { kind: 'skipped', generation, reason: stat.skipped! };
  }
}
