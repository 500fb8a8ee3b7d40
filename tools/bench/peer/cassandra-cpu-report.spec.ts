import { CpuRound, CpuSection, sectionMarkdown } from './cassandra-cpu-report';

function round(arm: string, n: number, putCassMs: number, getCassMs: number): CpuRound {
  const phase = (cassandraMs: number) => ({
    wallMs: 1000,
    cassandraMs,
    gatewayMs: 100,
    tailMs: 0,
    tailSec: 1,
    settled: true,
  });
  return {
    arm,
    round: n,
    ops: 100,
    idleMsPerSec: 10,
    put: phase(putCassMs),
    get: phase(getCassMs),
    loadavg: [1],
  };
}

function section(rounds: CpuRound[]): CpuSection {
  return {
    label: 't',
    at: '2026-12-05T00:00:00Z',
    commit: 'c',
    command: 'npm run bench -- cassandra-cpu',
    load: '1',
    options: {},
    tables: ['versions'],
    arms: [{ name: 'a', cql: 'x = 1' }, { name: 'b' }],
    rounds,
  };
}

const row = (md: string[], metric: string) =>
  md
    .find((l) => l.startsWith(`| ${metric} |`))!
    .split('|')
    .map((c) => c.trim());

describe('cassandra-cpu results', () => {
  it('gives per-op medians per arm and the median of the per-round ratios to the first arm', () => {
    // a: 100, 200, 300 ms per 100 PUTs; b: 50, 300, 150 → per-round ratios 0.5, 1.5, 0.5
    const md = sectionMarkdown(
      section([
        round('a', 1, 100, 10),
        round('b', 1, 50, 10),
        round('a', 2, 200, 10),
        round('b', 2, 300, 10),
        round('a', 3, 300, 10),
        round('b', 3, 150, 10),
      ]),
    );
    const put = row(md, 'Cassandra ms per PUT');
    expect(put[2]).toBe('2.000');
    expect(put[3]).toBe('1.500');
    expect(put[4]).toBe('0.500');
    // net of idle: 10 ms/s over the 1 s phase is 0.1 ms per op less
    expect(row(md, 'Cassandra ms per PUT net of idle')[2]).toBe('1.900');
  });

  it('leaves a ratio out when the first arm has no round to compare with', () => {
    const md = sectionMarkdown(section([round('b', 1, 50, 10)]));
    expect(row(md, 'Cassandra ms per GET')[4]).toBe('–');
  });
});
