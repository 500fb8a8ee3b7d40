import type { Client, Host, HostMap } from 'cassandra-driver';
import { types } from 'cassandra-driver';
import { ipOf, PinnedHostPolicy } from './pinned-host.policy';

const host = (address: string) => ({ address }) as Host;
const hostMap = (hosts: Host[]) => ({ values: () => hosts }) as unknown as HostMap;

function plan(sut: PinnedHostPolicy): string[] {
  let out: string[] = [];
  sut.newQueryPlan('ks', {} as never, (_err, it) => {
    out = [...{ [Symbol.iterator]: () => it }].map((h) => h.address);
  });
  return out;
}

describe(PinnedHostPolicy.name, () => {
  it('plans every request on its node only and ignores the others (no pool is opened to them)', () => {
    const hosts = [host('10.0.0.1:9042'), host('10.0.0.2:9042'), host('10.0.0.3:9042')];
    const sut = new PinnedHostPolicy(['10.0.0.2']);
    sut.init({} as Client, hostMap(hosts), () => undefined);
    expect(plan(sut)).toEqual(['10.0.0.2:9042']);
    expect(hosts.map((h) => sut.getDistance(h))).toEqual([types.distance.ignored, types.distance.local, types.distance.ignored]);
  });

  it('plans nothing (the request fails) when its node is unknown, never another node', () => {
    const sut = new PinnedHostPolicy(['10.0.0.9']);
    sut.init({} as Client, hostMap([host('10.0.0.1:9042')]), () => undefined);
    expect(plan(sut)).toEqual([]);
  });

  it('refuses to be built without an address', () => {
    expect(() => new PinnedHostPolicy([])).toThrow(/address/);
  });
});

describe(ipOf.name, () => {
  it('takes the IP out of driver addresses', () => {
    expect(ipOf('127.0.0.1:9042')).toBe('127.0.0.1');
    expect(ipOf('[::1]:9042')).toBe('::1');
    expect(ipOf('10.1.2.3')).toBe('10.1.2.3');
    expect(ipOf('fe80::1')).toBe('fe80::1');
  });
});
