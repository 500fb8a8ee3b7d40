import { parseAdminArgs, unreachable } from './admin-cli';

describe(parseAdminArgs.name, () => {
  it('maps commands to admin API calls', () => {
    expect(parseAdminArgs(['user', 'create', 'alice', '--display-name', 'Alice A'])).toEqual({
      method: 'POST',
      path: '/admin/users',
      body: { id: 'alice', displayName: 'Alice A' },
    });
    expect(parseAdminArgs(['key', 'create', 'alice', '--access-key-id', 'AKIAEXAMPLE000000000', '--secret-access-key', 's'.repeat(40)])).toEqual({
      method: 'POST',
      path: '/admin/users/alice/keys',
      body: { accessKeyId: 'AKIAEXAMPLE000000000', secretAccessKey: 's'.repeat(40) },
    });
    expect(parseAdminArgs(['key', 'disable', 'AKIA/X'])).toEqual({ method: 'POST', path: '/admin/keys/AKIA%2FX/disable' });
    expect(parseAdminArgs(['user', 'list'])).toEqual({ method: 'GET', path: '/admin/users' });
  });

  it.each([
    [[], 'no command given'],
    [['user', 'delete', 'x'], 'unknown command "user delete x"'],
    [['user', 'create'], 'user create needs <id>'],
    [['user', 'create', 'a', '--colour', 'red'], 'unknown option --colour'],
    [['key', 'create', 'a', '--access-key-id', 'K'], '--access-key-id and --secret-access-key go together'],
    [['user', 'create', 'a', '--display-name'], 'option --display-name needs a value'],
  ])('rejects %j with a precise message', (argv, message) => {
    expect(() => parseAdminArgs(argv as string[])).toThrow(message);
  });
});

describe(unreachable.name, () => {
  it('names the URL and the cause instead of "fetch failed"', () => {
    const error = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9104'), { code: 'ECONNREFUSED' }) });
    expect(unreachable('http://127.0.0.1:9104', error)).toMatch(/^cannot reach the gateway's admin API at http:\/\/127\.0\.0\.1:9104 \(ECONNREFUSED\)/);
  });
});
