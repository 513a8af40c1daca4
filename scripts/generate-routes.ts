// `npm run routes`: writes the route files under app/ from the route table
// (lib/http/api-routes.ts) and removes generated ones the table no longer has.
import fs from "node:fs";
import path from "node:path";
import { apiRoutes } from "@/lib/http/api-routes";
import { GENERATED_MARKER, nextRouteFiles, ROUTE_FILE_SOURCE } from "@/lib/http/next-route-files";

const ROOT = path.resolve(import.meta.dirname, "..");

function routeFilesOnDisk(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return routeFilesOnDisk(full);
    return entry.name === "route.ts" ? [path.relative(ROOT, full).split(path.sep).join("/")] : [];
  });
}

const wanted = new Set(nextRouteFiles(apiRoutes.routes().map((route) => route.path)));
let changed = 0;
for (const file of wanted) {
  const full = path.join(ROOT, file);
  if (fs.existsSync(full) && fs.readFileSync(full, "utf8") === ROUTE_FILE_SOURCE) continue;
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, ROUTE_FILE_SOURCE);
  process.stdout.write(`wrote ${file}\n`);
  changed += 1;
}
for (const file of routeFilesOnDisk(path.join(ROOT, "app"))) {
  const full = path.join(ROOT, file);
  if (wanted.has(file) || !fs.readFileSync(full, "utf8").startsWith(GENERATED_MARKER)) continue;
  fs.rmSync(full);
  // Folders left empty go too.
  for (let directory = path.dirname(full); directory !== path.join(ROOT, "app") && fs.readdirSync(directory).length === 0; directory = path.dirname(directory)) {
    fs.rmdirSync(directory);
  }
  process.stdout.write(`removed ${file}\n`);
  changed += 1;
}
process.stdout.write(changed === 0 ? "app/ route files already match the route table\n" : `${changed} route files changed\n`);
