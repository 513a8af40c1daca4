// Pure helpers for the Playground: readable errors and "copy as curl".

/** The API's own message for a failed call (quota, rate limit, upstream down...), never a stack. */
export function describeError(error: unknown): string {
  const value = error as { responseBody?: string; statusCode?: number; message?: string } | undefined;
  if (value?.responseBody) {
    try {
      const body = JSON.parse(value.responseBody) as { error?: { message?: string } };
      if (body.error?.message) return value.statusCode ? `${body.error.message} (HTTP ${value.statusCode})` : body.error.message;
    } catch {
      // Not JSON: fall through to the message.
    }
  }
  return value?.message || "The request failed.";
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A runnable curl for the request the Playground sent; credentials become $GATEWAY_KEY. */
export function toCurl(sent: { url: string; headers: Record<string, string>; body: string }): string {
  const lines = [`curl ${quote(sent.url)}`, `  -H 'Authorization: Bearer $GATEWAY_KEY'`, `  -H 'Content-Type: application/json'`];
  let body = sent.body;
  try {
    body = JSON.stringify(JSON.parse(sent.body), null, 2);
  } catch {
    // Keep the raw body.
  }
  lines.push(`  -d ${quote(body)}`);
  return lines.join(" \\\n").replace("'Authorization: Bearer $GATEWAY_KEY'", `"Authorization: Bearer $GATEWAY_KEY"`);
}
