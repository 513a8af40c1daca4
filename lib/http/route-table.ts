import type { ApiHandler } from "./api-types";

export interface RouteMatch {
  handler: ApiHandler;
  params: Record<string, string>;
}

type Route = { method: string; segments: string[]; handler: ApiHandler };

/** A small path router: static segments and `:name` parameters, exact method match. */
export class RouteTable {
  private readonly exact = new Map<string, ApiHandler>();
  private readonly patterns: Route[] = [];

  /** `:name` captures one segment; a last `*name` captures the rest of the path. */
  add(method: string, path: string, handler: ApiHandler): this {
    if (path.includes(":") || path.includes("*")) this.patterns.push({ method, segments: path.split("/"), handler });
    else this.exact.set(`${method} ${path}`, handler);
    return this;
  }

  /** Every registered route, for the OpenAPI document's check. */
  routes(): { method: string; path: string; handler: ApiHandler }[] {
    return [
      ...[...this.exact].map(([key, handler]) => ({ method: key.split(" ")[0]!, path: key.slice(key.indexOf(" ") + 1), handler })),
      ...this.patterns.map((route) => ({ method: route.method, path: route.segments.join("/"), handler: route.handler })),
    ];
  }

  match(method: string, pathname: string): RouteMatch | undefined {
    const handler = this.exact.get(`${method} ${pathname}`);
    if (handler) return { handler, params: {} };
    const segments = pathname.split("/");
    for (const route of this.patterns) {
      if (route.method !== method) continue;
      const rest = route.segments.at(-1)!.startsWith("*");
      if (rest ? segments.length < route.segments.length : segments.length !== route.segments.length) continue;
      const params: Record<string, string> = {};
      const matched = route.segments.every((segment, index) => {
        if (segment.startsWith("*")) {
          const remainder = segments.slice(index).join("/");
          params[segment.slice(1)] = decodeURIComponent(remainder);
          return remainder !== "";
        }
        if (segment.startsWith(":")) {
          params[segment.slice(1)] = decodeURIComponent(segments[index]!);
          return segments[index] !== "";
        }
        return segment === segments[index];
      });
      if (matched) return { handler: route.handler, params };
    }
    return undefined;
  }
}
