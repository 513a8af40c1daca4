import { NextResponse, type NextRequest } from "next/server";
import { REFUSING_PREFIXES } from "@/lib/http/next-route-files";
import { errorBody, isConsoleWrite, MULTIPART_BODY_LIMIT, multipartDelimiter, multipartProblem, unknownPathMessage, WRITE_METHODS } from "@/lib/http/stray-writes";

// Next's proxy, for what reaches Next (every request under `next start`, console paths
// under `npm start`): writes nobody serves get the API's JSON 404 rather than Next's
// server-action 500 or HTML page, and a malformed multipart post to a console page a 400
// (lib/http/stray-writes.ts). API paths pass to their route files, which answer alike. A
// page asked for with a key in its query is redirected without it.

// API routes outside the refusing prefixes, whose route files answer any method themselves.
const API_FILES = new Set(["/api/health", "/api/usage", "/openapi.json", "/metrics"]);
const isApiPath = (pathname: string) => API_FILES.has(pathname) || REFUSING_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));

/** A query parameter that carries a credential: Gemini's `key`, or any value shaped like a gateway key. */
const isCredential = (name: string, value: string) => name.toLowerCase() === "key" || value.startsWith("sk-");

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const { method } = request;
  const { pathname } = request.nextUrl;
  // A page echoes its own address (Next puts it in the page's data): a key sent in a page's
  // query, by mistake or by a link someone crafted, is dropped by a redirect first.
  if (!isApiPath(pathname) && (method === "GET" || method === "HEAD") && [...request.nextUrl.searchParams].some(([name, value]) => isCredential(name, value))) {
    const clean = request.nextUrl.clone();
    for (const [name, value] of [...clean.searchParams]) if (isCredential(name, value)) clean.searchParams.delete(name, value);
    return NextResponse.redirect(clean, 303);
  }
  if (!WRITE_METHODS.has(method) || isApiPath(pathname)) return NextResponse.next();
  if (!isConsoleWrite(method, pathname)) return NextResponse.json(errorBody(unknownPathMessage(method), "unknown_url"), { status: 404 });
  const delimiter = multipartDelimiter(request.headers.get("content-type") ?? "");
  if (method !== "POST" || delimiter === undefined) return NextResponse.next();
  const announced = Number(request.headers.get("content-length"));
  // Only small bodies of known length are read here (console forms are); Next reads its own copy.
  if (delimiter && !(Number.isInteger(announced) && announced <= MULTIPART_BODY_LIMIT)) return NextResponse.next();
  const body = delimiter ? Buffer.from(await request.clone().arrayBuffer()) : Buffer.alloc(0);
  const problem = multipartProblem(delimiter, body, true);
  return problem ? NextResponse.json(errorBody(problem, "malformed_form"), { status: 400 }) : NextResponse.next();
}
