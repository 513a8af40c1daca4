import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { apiRoutes, matchApiRoute } from "@/lib/http/api-routes";
import { GENERATED_MARKER, nextRouteFiles, ROUTE_FILE_SOURCE, routeFileFor } from "@/lib/http/next-route-files";

// The route table is the one list of the API: Next's route files under app/ are generated
// from it (`npm run routes`) and must not drift from it.

const ROOT = path.resolve(import.meta.dirname, "..", "..");

function routeFilesUnder(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return routeFilesUnder(full);
    return entry.name === "route.ts" ? [path.relative(ROOT, full).split(path.sep).join("/")] : [];
  });
}

describe("the route list", () => {
  const wanted = nextRouteFiles(apiRoutes.routes().map((route) => route.path));

  test("every route of the table has its generated file under app/, unchanged", () => {
    for (const file of wanted) {
      const full = path.join(ROOT, file);
      assert.ok(fs.existsSync(full), `${file} is missing: run \`npm run routes\``);
      assert.equal(fs.readFileSync(full, "utf8"), ROUTE_FILE_SOURCE, `${file} differs from the generated source: run \`npm run routes\``);
    }
  });

  test("app/ has no API route file the table does not list", () => {
    const onDisk = routeFilesUnder(path.join(ROOT, "app"));
    const stale = onDisk.filter((file) => !wanted.includes(file) && fs.readFileSync(path.join(ROOT, file), "utf8").startsWith(GENERATED_MARKER));
    assert.deepEqual(stale, [], "generated files the table no longer has: run `npm run routes`");
    // A hand-written file at an API path would answer differently from server.ts.
    const handWritten = onDisk.filter((file) => !wanted.includes(file)).map((file) => `/${file.slice("app/".length, -"/route.ts".length)}`);
    for (const route of handWritten) {
      const sample = route
        .replace(/\[\[?\.\.\.(\w+)\]?\]/g, "x/y")
        .replace(/\[(\w+)\]/g, "x")
        .replace(/\/\([^/]+\)/g, "");
      assert.equal(matchApiRoute("GET", sample) ?? matchApiRoute("POST", sample), undefined, `app${route}/route.ts is an API path the route table serves: generate it instead`);
    }
  });

  test("maps table paths to Next's folder names", () => {
    assert.equal(routeFileFor("/v1/chat/completions"), "app/v1/chat/completions/route.ts");
    assert.equal(routeFileFor("/v1/responses/:id/input_items"), "app/v1/responses/[id]/input_items/route.ts");
    assert.equal(routeFileFor("/v1beta/models/*path"), "app/v1beta/models/[...path]/route.ts");
    assert.ok(wanted.includes("app/v1/[[...unmatched]]/route.ts"), "unknown /v1 paths reach the dispatcher");
  });
});
