/** `small`: many small objects, many clients; objects/s and p99 against the targets. */
import { ScenarioResult, TARGETS } from '../lib/report';
import { sizeLabel } from '../lib/units';
import { Bench, errorCheck, Target } from '../harness/bench';
import { putGetPhases, warmup } from '../harness/phases';

export async function small(bench: Bench, t: Target): Promise<ScenarioResult> {
  const a = bench.args;
  const s = bench.newScenario(
    'small',
    `small — ${sizeLabel(a.smallSize)} objects, ${a.smallConcurrency} concurrent clients`,
  );
  if (bench.useWarp() && a.warmupMs > 0) await warmup(bench, t, s);
  const ms = await putGetPhases(bench, t, s, {
    name: 'small',
    size: a.smallSize,
    concurrency: a.smallConcurrency,
    durationMs: a.smallDurationMs,
    objects: a.smallObjects,
  });
  s.measurements = ms;
  for (const m of ms) {
    const goal = m.op === 'PUT' ? TARGETS.smallPutObjPerSec : TARGETS.smallGetObjPerSec;
    s.checks.push({
      what: `${m.op} objects/s (${m.client})`,
      target: `≥ ${goal}`,
      measured: m.objPerSec.toFixed(1),
      pass: m.objPerSec >= goal,
    });
    const p99 = m.latencyMs?.p99 ?? NaN;
    s.checks.push({
      what: `${m.op} p99 latency (${m.client})`,
      target: `< ${TARGETS.smallP99Ms} ms`,
      measured: `${p99.toFixed(1)} ms (p50 ${m.latencyMs?.p50.toFixed(1)}, p90 ${m.latencyMs?.p90.toFixed(1)})`,
      pass: p99 < TARGETS.smallP99Ms,
    });
    s.checks.push(errorCheck(m));
  }
  s.notes.push(...bench.commonNotes());
  if (bench.useWarp()) {
    s.notes.push(
      "warp's numbers are its steady-state report: it leaves out the first and last partial seconds, so `measured s` is a little shorter than the phase; `requests` counts the whole phase.",
      `warp get first uploads ${a.smallObjects} objects (not measured), then GETs random ones of them.`,
    );
  }
  return s;
}
