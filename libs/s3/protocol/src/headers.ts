/** Request headers as the gateway hands them over: lower-case names, repeated headers as arrays. */
export type HttpHeaders = Record<string, string | string[] | undefined>;

/** One header's value; a repeated header's values joined with `,` (RFC 9110 list syntax). */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The headers a request sent on more than one line, by lower-case name, each line's value in
 * order (from Node's `rawHeaders`); undefined when every header came once. Node's `headers`
 * joins such lines with ", " or keeps only the first, while a signature covers every line joined
 * by "," (see SigV4Request.repeatedHeaders).
 */
export function repeatedHeaders(rawHeaders: readonly string[]): Record<string, string[]> | undefined {
  const seen = new Set<string>();
  let repeated: Set<string> | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (seen.has(name)) (repeated ??= new Set()).add(name);
    else seen.add(name);
  }
  if (!repeated) return undefined;
  const out: Record<string, string[]> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (repeated.has(name)) (out[name] ??= []).push(rawHeaders[i + 1]!);
  }
  return out;
}
