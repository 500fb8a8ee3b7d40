const cache = new Map<string, RegExp>();

/**
 * IAM's wildcard match: `*` any run of characters (none included), `?` exactly one; everything
 * else literal. `ignoreCase` for action names, which IAM compares case-insensitively.
 */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return ignoreCase ? pattern.toLowerCase() === value.toLowerCase() : pattern === value;
  const cacheKey = (ignoreCase ? 'i:' : 's:') + pattern;
  let re = cache.get(cacheKey);
  if (!re) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[\\s\\S]*').replace(/\?/g, '[\\s\\S]');
    re = new RegExp(`^${body}$`, ignoreCase ? 'i' : '');
    if (cache.size > 5000) cache.clear();
    cache.set(cacheKey, re);
  }
  return re.test(value);
}
