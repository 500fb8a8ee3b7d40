/** `memory`: the gateway's RSS while one big object is streamed up and down (SDK only). */
import { RssSampler, CpuMeter } from '../lib/proc';
import { Measurement, ScenarioResult, TARGETS } from '../lib/report';
import { downloadHashed, ensureBucket, sdkClient, TransferResult, uploadGenerated } from '../lib/sdk-load';
import { formatBytes, sizeLabel } from '../lib/units';
import { Bench, log, MiB, REGION, sleep, Target } from '../harness/bench';
import { countersBefore, endTransfer } from '../harness/phases';

export async function memory(bench: Bench, t: Target): Promise<ScenarioResult> {
  const a = bench.args;
  const s = bench.newScenario(
    'memory',
    `memory — gateway RSS while one ${sizeLabel(a.memorySize)} object goes up and down`,
  );
  if (!t.gatewayPid) {
    s.error = 'no gateway pid to sample (with --endpoint, pass --gateway-pid)';
    return s;
  }
  const client = sdkClient(
    { endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey },
    a.queueSize + 2,
    30 * 60_000,
  );
  const bucket = bench.bucket('memory');
  const key = `big/${sizeLabel(a.memorySize)}.bin`;
  const sampler = new RssSampler(t.gatewayPid, a.rssIntervalMs).start();
  const pids = t.pids;
  try {
    await ensureBucket(client, bucket);
    await sleep(1000);
    sampler.mark('upload');
    let counters = await countersBefore(t);
    let cpu = new CpuMeter(pids).start();
    let up: TransferResult | undefined;
    const mode = a.memoryMode === 'single' ? 'single' : 'multipart';
    log(
      `memory: uploading ${formatBytes(a.memorySize)} (${mode === 'multipart' ? `lib-storage, ${sizeLabel(a.partSize)} parts × ${a.queueSize}` : 'one PutObject'})`,
    );
    try {
      up = await uploadGenerated(client, bucket, key, a.memorySize, {
        mode,
        partSize: a.partSize,
        queueSize: a.queueSize,
      });
    } catch (e) {
      if (a.memoryMode !== 'auto') throw e;
      const err = e as Error;
      s.notes.push(
        `Multipart upload failed (${err.name}: ${err.message.slice(0, 200)}); fell back to one streamed PutObject.`,
      );
      log(
        `memory: multipart failed (${err.name}: ${err.message.slice(0, 200)}); one streamed PutObject instead`,
      );
      up = await uploadGenerated(client, bucket, key, a.memorySize, {
        mode: 'single',
        partSize: a.partSize,
        queueSize: a.queueSize,
      });
    }
    await endTransfer(bench, t, s, `upload ${sizeLabel(a.memorySize)}`, { cpu, counters, window: up });
    counters = await countersBefore(t);
    log(
      `memory: upload ${up.mibPerSec.toFixed(1)} MiB/s, gateway RSS max ${(sampler.max('upload') / MiB).toFixed(0)} MiB`,
    );
    sampler.mark('download');
    cpu = new CpuMeter(pids).start();
    const down = await downloadHashed(client, bucket, key);
    await endTransfer(bench, t, s, `download ${sizeLabel(a.memorySize)}`, { cpu, counters, window: down });
    log(
      `memory: download ${down.mibPerSec.toFixed(1)} MiB/s, gateway RSS max ${(sampler.max('download') / MiB).toFixed(0)} MiB`,
    );
    sampler.mark('after');
    await sleep(1000);
    sampler.stop();

    const maxUp = sampler.max('upload') / MiB;
    const maxDown = sampler.max('download') / MiB;
    const hwm = sampler.highWaterMark();
    s.memory = {
      baselineMiB: sampler.max('start') / MiB,
      maxUploadMiB: maxUp,
      maxDownloadMiB: maxDown,
      maxMiB: Math.max(maxUp, maxDown),
      hwmMiB: hwm !== undefined ? hwm / MiB : undefined,
      samples: sampler.samples.length,
      intervalMs: a.rssIntervalMs,
      series: rssSeries(sampler),
    };
    const transfer = (op: 'UPLOAD' | 'DOWNLOAD', r: TransferResult): Measurement => ({
      label: `${op} ${sizeLabel(a.memorySize)}`,
      client: `aws-sdk (${r.mode})`,
      op,
      objectSize: a.memorySize,
      concurrency: 1,
      seconds: r.ms / 1000,
      requests: 1,
      errors: 0,
      objPerSec: 1000 / r.ms,
      mibPerSec: r.mibPerSec,
    });
    s.measurements = [transfer('UPLOAD', up), transfer('DOWNLOAD', down)];
    s.checks.push(
      {
        what: `gateway RSS max during upload`,
        target: `< ${TARGETS.memoryMaxRssMiB} MiB`,
        measured: `${maxUp.toFixed(0)} MiB`,
        pass: maxUp < TARGETS.memoryMaxRssMiB,
      },
      {
        what: `gateway RSS max during download`,
        target: `< ${TARGETS.memoryMaxRssMiB} MiB`,
        measured: `${maxDown.toFixed(0)} MiB`,
        pass: maxDown < TARGETS.memoryMaxRssMiB,
      },
      {
        what: 'content round-trips (SHA-256 up = down)',
        target: 'equal',
        measured:
          up.sha256 === down.sha256 && down.bytes === a.memorySize
            ? `equal (${formatBytes(down.bytes)})`
            : `differs: ${down.bytes} bytes`,
        pass: up.sha256 === down.sha256 && down.bytes === a.memorySize,
      },
    );
    s.raw.push({ label: 'transfers', text: JSON.stringify({ upload: up, download: down }, null, 2) });
    s.notes.push(
      `The body is generated while it is sent (1 MiB blocks, SHA-256 on the fly) and hashed while it is received; neither side keeps it.`,
      `VmHWM is the kernel's peak over the whole process life, start-up and earlier scenarios of the same gateway included; the check uses the samples of the two phases.`,
    );
  } catch (e) {
    sampler.stop();
    const err = e as Error & { $metadata?: { httpStatusCode?: number } };
    s.error = `${err.name} ${err.$metadata?.httpStatusCode ?? ''}: ${err.message}`.slice(0, 500);
    log(`memory: failed: ${s.error}`);
  } finally {
    client.destroy();
  }
  return s;
}

/** RSS in MiB, the max of each second, as one line. */
function rssSeries(s: RssSampler): string {
  const perSec = new Map<number, { rss: number; phase: string }>();
  for (const x of s.samples) {
    const sec = Math.floor(x.t / 1000);
    const cur = perSec.get(sec);
    if (!cur || x.rss > cur.rss) perSec.set(sec, { rss: x.rss, phase: x.phase });
  }
  let phase = '';
  const parts: string[] = [];
  for (const [sec, v] of [...perSec.entries()].sort((a, b) => a[0] - b[0])) {
    if (v.phase !== phase) {
      phase = v.phase;
      parts.push(`[${phase}]`);
    }
    parts.push(`${sec}s:${(v.rss / MiB).toFixed(0)}`);
  }
  return parts.join(' ');
}
