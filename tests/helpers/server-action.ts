import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

// Calls a Next server action the way the browser's form does, without a browser: the
// action's id comes from the build's server-reference manifest, and a FormData argument
// is encoded as React's encodeReply encodes it (its fields prefixed "_1_", the argument
// list in field "0" naming it "$K1").

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const manifestSchema = z.object({ node: z.record(z.string(), z.object({ filename: z.string(), exportedName: z.string() })) });

/** The id the last build gave `exportedName` of `filename` (e.g. "app/setup/actions.ts"). */
export function serverActionId(filename: string, exportedName: string): string {
  const manifest = manifestSchema.parse(JSON.parse(fs.readFileSync(path.join(ROOT, ".next", "server", "server-reference-manifest.json"), "utf8")));
  const found = Object.entries(manifest.node).find(([, entry]) => entry.filename === filename && entry.exportedName === exportedName);
  if (!found) throw new Error(`no server action ${exportedName} in ${filename}: is the build current?`);
  return found[0];
}

/** Posts `fields` as the action's one FormData argument; answers the status and the RSC payload as text. */
export async function callFormAction(baseUrl: string, page: string, actionId: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(`_1_${name}`, value);
  body.append("0", JSON.stringify(["$K1"]));
  const response = await fetch(`${baseUrl}${page}`, {
    method: "POST",
    headers: { "next-action": actionId, accept: "text/x-component", origin: baseUrl },
    body,
  });
  return { status: response.status, text: await response.text() };
}
