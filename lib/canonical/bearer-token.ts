// The one reading of `Authorization: Bearer`, for every caller of the API, the admin API and /metrics.

/** `Authorization: Bearer <key>`, the scheme compared case-insensitively. */
export function bearerToken(header: string | null): string | null {
  if (!header) return null;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
