// Writes (POST, PUT, PATCH, DELETE) that neither the API nor the console serves. Only
// the console's pages take form posts (server actions, POST only) and only its own routes
// other writes; every other write is a JSON 404, never a body handed to Next's
// server-action parser (which answers a 500 to what it cannot parse). A multipart post to
// a console page must be the multipart it claims, or it is a 400. Shared by the route
// table (api-routes.ts) and Next's proxy (proxy.ts, which sees what reaches Next under
// either entry), so it imports nothing heavier than itself.

export const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const CONSOLE_PAGES = ["/console", "/login", "/setup", "/signup"];
const CONSOLE_ROUTES = ["/api/auth", "/api/console"];
const under = (prefixes: string[], pathname: string) => prefixes.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));

/** Pages take server actions (POST only); the console's own routes answer their methods themselves. */
export const isConsoleWrite = (method: string, pathname: string) => (method === "POST" && under(CONSOLE_PAGES, pathname)) || under(CONSOLE_ROUTES, pathname);

// The path is never quoted back: a key pasted into a URL by mistake must not be echoed.
export const unknownPathMessage = (method: string) => `There is no ${method} endpoint at this path; /openapi.json lists the endpoints this gateway serves.`;

/** OpenAI's error shape, which the admin API and unknown paths outside an API use too. */
export const errorBody = (message: string, code: string) => ({ error: { message, type: "invalid_request_error", param: null, code } });

export const MULTIPART_BODY_LIMIT = 1024 * 1024;

/** The multipart delimiter a content type names: undefined when it is no multipart form, null when it names none. */
export function multipartDelimiter(contentType: string): Buffer | null | undefined {
  if (!/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return boundary ? Buffer.from(`--${boundary[1] ?? boundary[2]}`) : null;
}

/**
 * Why a body cannot be the multipart form it claims to be, or undefined: it must open with
 * the delimiter and, when `whole`, close with it.
 */
export function multipartProblem(delimiter: Buffer | null, body: Buffer, whole: boolean): string | undefined {
  if (!delimiter) return "A multipart form needs a boundary in its content type.";
  const opens = body.length >= delimiter.length && body.subarray(0, delimiter.length).equals(delimiter);
  const closes = !whole || body.includes(Buffer.concat([delimiter, Buffer.from("--")]));
  return opens && closes ? undefined : "The body is not the multipart form its content type announces.";
}
