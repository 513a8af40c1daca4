// For a model name no channel serves: the names it was probably meant to be (a typo such
// as `fake-gtp` for `fake-gpt`), and a short list of what the caller may use instead.

/** Edits (insert, delete, replace, swap two neighbours) between two strings. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) => Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(table[row - 1]![column]! + 1, table[row]![column - 1]! + 1, table[row - 1]![column - 1]! + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) best = Math.min(best, table[row - 2]![column - 2]! + 1);
      table[row]![column] = best;
    }
  }
  return table[rows - 1]![columns - 1]!;
}

/** Up to `limit` names within a few edits of `wanted` (case aside), closest first. */
export function nearestNames(wanted: string, names: Iterable<string>, limit = 3): string[] {
  const target = wanted.toLowerCase();
  const allowed = Math.max(2, Math.floor(target.length / 4));
  return [...names]
    .map((name) => ({ name, distance: editDistance(target, name.toLowerCase()) }))
    .filter(({ distance }) => distance <= allowed)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map(({ name }) => name);
}

const LISTED = 20;

/** The 404's words for a model no channel serves: nearest names first, then (bounded) what the key may use. */
export function unknownModelMessage(model: string, usable: string[]): string {
  const sorted = [...usable].sort((a, b) => a.localeCompare(b));
  const near = nearestNames(model, sorted);
  const parts = [`The model '${model}' does not exist or you do not have access to it.`];
  if (near.length > 0) parts.push(`Did you mean ${near.map((name) => `'${name}'`).join(" or ")}?`);
  if (sorted.length === 0) parts.push("No channel serves any model this key may use.");
  else {
    const more = sorted.length > LISTED ? ` and ${sorted.length - LISTED} more (GET /v1/models lists them all)` : "";
    parts.push(`This key may use: ${sorted.slice(0, LISTED).join(", ")}${more}.`);
  }
  return parts.join(" ");
}
