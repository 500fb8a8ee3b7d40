/**
 * Replaces IAM policy variables (`${aws:userid}`, `${s3:prefix}`; `${*}`, `${?}`, `${$}` for the
 * literal characters) in a resource or condition value with the request's value. Undefined when a
 * variable names a key the request does not have: the value then matches nothing.
 */
export function substituteVariables(text: string, context: Record<string, string[]>): string | undefined {
  if (!text.includes('${')) return text;
  let missing = false;
  const out = text.replace(/\$\{([^}]*)\}/g, (_, name: string) => {
    if (name === '*' || name === '?' || name === '$') return name;
    const value = context[name.toLowerCase()]?.[0];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : out;
}
