/** Where sign-in returns to when no page, or no console page, was asked for. */
export const DEFAULT_RETURN_PATH = "/console";

/**
 * The console page a sign-in returns to: only a path on this site under /console (never
 * `//host` or another origin), so a crafted link cannot send a user elsewhere.
 */
export function returnPath(value: unknown): string {
  if (typeof value !== "string" || !/^\/console(?:[/?#]|$)/.test(value) || /[\\\s]/.test(value)) return DEFAULT_RETURN_PATH;
  return value;
}

/** The sign-in page, asked to come back to `from` afterwards. */
export function signInPath(from?: string): string {
  const back = from === undefined ? DEFAULT_RETURN_PATH : returnPath(from);
  return back === DEFAULT_RETURN_PATH ? "/login" : `/login?callbackUrl=${encodeURIComponent(back)}`;
}

/** A page's own address with its query, for `requireUser`: the pages know their route, the server does not tell them. */
export function pageAddress(pathname: string, searchParams: Record<string, string | string[] | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(searchParams)) for (const one of [value ?? []].flat()) query.append(key, one);
  const text = query.toString();
  return text ? `${pathname}?${text}` : pathname;
}
