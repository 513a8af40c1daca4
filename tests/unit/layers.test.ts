import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import ts from "typescript";

// lib/'s folders are layers, in the order lib/README.md writes down: a folder imports values
// only from its own layer or below, and folders import each other only in the top layer.
// Type-only imports are free (they vanish at run time); Prisma's generated client is not ours.

const LIB = path.resolve(import.meta.dirname, "..", "..", "lib");

function declaredLayers(): string[][] {
  const readme = fs.readFileSync(path.join(LIB, "README.md"), "utf8");
  const block = /```layers\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, "lib/README.md has a ```layers block");
  return block
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));
}

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith("generated") ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** lib/'s top folder of a file, "(root)" for lib/'s own files. */
function folderOf(file: string): string {
  const parts = path.relative(LIB, file).split(path.sep);
  return parts.length === 1 ? "(root)" : parts[0]!;
}

/** The lib/ modules a file imports values from (type-only imports and exports left out). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const targets: string[] = [];
  const add = (specifier: string) => {
    const target = specifier.startsWith("@/lib/")
      ? path.join(LIB, specifier.slice("@/lib/".length))
      : specifier.startsWith(".")
        ? path.resolve(path.dirname(file), specifier)
        : null;
    // A folder imported by its name is its index.
    if (target) targets.push(fs.existsSync(target) && fs.statSync(target).isDirectory() ? path.join(target, "index.ts") : target);
  };
  source.forEachChild(function visit(node) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = clause?.isTypeOnly || (clause && !clause.name && named && named.length > 0 && named.every((element) => element.isTypeOnly));
      if (!typeOnly) add(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      add(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0]!)) {
      add((node.arguments[0] as ts.StringLiteral).text);
    }
    node.forEachChild(visit);
  });
  return targets;
}

test("lib/ folders import only from their layer or below, and form no cycle below the top layer", () => {
  const layers = declaredLayers();
  const layerOf = new Map(layers.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
  const top = layers.length - 1;
  const edges = new Map<string, Map<string, string>>();
  const undeclared = new Set<string>();
  for (const file of sourceFiles(LIB)) {
    const from = folderOf(file);
    if (!layerOf.has(from)) undeclared.add(from);
    for (const target of valueImports(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      if (!layerOf.has(to)) undeclared.add(to);
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(to, `${path.relative(LIB, file)} -> ${path.relative(LIB, target)}`);
    }
  }
  assert.deepEqual([...undeclared], [], "every folder of lib/ has a layer in lib/README.md");

  const upward: string[] = [];
  for (const [from, targets] of edges) {
    for (const [to, example] of targets) if (layerOf.get(to)! > layerOf.get(from)!) upward.push(`${from} -> ${to} (${example})`);
  }
  assert.deepEqual(upward, [], "no import from a higher layer");

  // Edges between layers only go down, so a cycle would lie within one layer.
  const cycles: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const walk = (folder: string, trail: string[]) => {
    state.set(folder, "visiting");
    for (const to of edges.get(folder)?.keys() ?? []) {
      if (layerOf.get(to) !== layerOf.get(folder) || layerOf.get(folder) === top) continue;
      if (state.get(to) === "visiting") cycles.push([...trail, folder, to].join(" -> "));
      else if (!state.has(to)) walk(to, [...trail, folder]);
    }
    state.set(folder, "done");
  };
  for (const folder of layerOf.keys()) if (!state.has(folder)) walk(folder, []);
  assert.deepEqual(cycles, [], "no folder-level import cycle below the top layer");
});

test("the runtime is handed in: getRuntime() is called only at the edges that serve requests", () => {
  // server.ts and Next's route files are outside lib/; inside it, the node:http and Next
  // adapters (http/) and the console's page helpers (console/, called by Next's pages).
  const edges = new Set(["runtime", "http", "console"]);
  const callers = sourceFiles(LIB)
    .filter((file) => !edges.has(folderOf(file)) && /\bgetRuntime\(/.test(fs.readFileSync(file, "utf8")))
    .map((file) => path.relative(LIB, file));
  assert.deepEqual(callers, []);
});
