import type { Runtime } from "@/lib/runtime";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ApiHandler } from "@/lib/canonical/api-types";

export interface RouteMatch {
  handler: ApiHandler<Runtime>;
  params: Record<string, string>;
}

/** What the table knows about a path: a handler, or the methods it does answer (for a 405), or nothing. */
export type RouteLookup = { kind: "found"; match: RouteMatch } | { kind: "method-not-allowed"; allowed: string[] } | { kind: "not-found" };

type Route = { method: string; segments: string[]; handler: ApiHandler<Runtime> };

/** A path parameter, decoded; a broken percent-encoding is the client's 400, never a thrown URIError. */
function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new GatewayError("invalid_request", "The request path contains a malformed percent-encoding.", { code: "invalid_path" });
  }
}

/** A small path router: static segments and `:name` parameters, exact method match. */
export class RouteTable {
  private readonly exact = new Map<string, ApiHandler<Runtime>>();
  private readonly exactMethods = new Map<string, string[]>();
  private readonly patterns: Route[] = [];

  /** `:name` captures one segment; a last `*name` captures the rest of the path. */
  add(method: string, path: string, handler: ApiHandler<Runtime>): this {
    if (path.includes(":") || path.includes("*")) this.patterns.push({ method, segments: path.split("/"), handler });
    else {
      this.exact.set(`${method} ${path}`, handler);
      this.exactMethods.set(path, [...(this.exactMethods.get(path) ?? []), method]);
    }
    return this;
  }

  /** Every registered route, for the OpenAPI document's check. */
  routes(): { method: string; path: string; handler: ApiHandler<Runtime> }[] {
    return [
      ...[...this.exact].map(([key, handler]) => ({ method: key.split(" ")[0]!, path: key.slice(key.indexOf(" ") + 1), handler })),
      ...this.patterns.map((route) => ({ method: route.method, path: route.segments.join("/"), handler: route.handler })),
    ];
  }

  /** Throws a 400 GatewayError when a parameter's percent-encoding is malformed. */
  lookup(method: string, pathname: string): RouteLookup {
    const handler = this.exact.get(`${method} ${pathname}`);
    if (handler) return { kind: "found", match: { handler, params: {} } };
    const allowed = new Set(this.exactMethods.get(pathname));
    const segments = pathname.split("/");
    for (const route of this.patterns) {
      if (!matchesShape(route.segments, segments)) continue;
      if (route.method !== method) {
        allowed.add(route.method);
        continue;
      }
      return { kind: "found", match: { handler: route.handler, params: captureParams(route.segments, segments) } };
    }
    return allowed.size > 0 ? { kind: "method-not-allowed", allowed: [...allowed] } : { kind: "not-found" };
  }

  /**
   * A route this path names in another letter case: its template (`/v1/responses/{id}`,
   * for a hint that never quotes the client's own segments back) and the path as the
   * route spells it.
   */
  spelling(pathname: string): { template: string; path: string } | undefined {
    const segments = pathname.split("/");
    for (const { path } of this.routes()) {
      const pattern = path.split("/");
      if (!matchesShape(pattern, segments, true)) continue;
      const spelled = pattern.flatMap((segment, index) => (segment.startsWith("*") ? segments.slice(index) : segment.startsWith(":") ? [segments[index]!] : [segment]));
      const template = pattern.map((segment) => (segment.startsWith(":") || segment.startsWith("*") ? `{${segment.slice(1)}}` : segment)).join("/");
      return { template, path: spelled.join("/") };
    }
    return undefined;
  }

  match(method: string, pathname: string): RouteMatch | undefined {
    const result = this.lookup(method, pathname);
    return result.kind === "found" ? result.match : undefined;
  }
}

function matchesShape(pattern: string[], segments: string[], anyCase = false): boolean {
  const rest = pattern.at(-1)!.startsWith("*");
  if (rest ? segments.length < pattern.length : segments.length !== pattern.length) return false;
  return pattern.every((segment, index) => {
    if (segment.startsWith("*")) return segments.slice(index).join("/") !== "";
    if (segment.startsWith(":")) return segments[index] !== "";
    return anyCase ? segment.toLowerCase() === segments[index]?.toLowerCase() : segment === segments[index];
  });
}

function captureParams(pattern: string[], segments: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  pattern.forEach((segment, index) => {
    if (segment.startsWith("*")) params[segment.slice(1)] = decodeSegment(segments.slice(index).join("/"));
    else if (segment.startsWith(":")) params[segment.slice(1)] = decodeSegment(segments[index]!);
  });
  return params;
}
