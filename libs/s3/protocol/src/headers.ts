/** Request headers as the gateway hands them over: lower-case names, repeated headers as arrays. */
export type HttpHeaders = Record<string, string | string[] | undefined>;

/** One header's value; a repeated header's values joined with `,` (RFC 9110 list syntax). */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
