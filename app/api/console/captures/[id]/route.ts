import { currentUser } from "@/lib/console/require-session";
import { storedForViewer } from "@/lib/providers/recording-upstream";
import { getRuntime } from "@/lib/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The upstream exchange recorded for one Playground request, for its owner only, with the
 * usage the gateway logged for it (a stopped stream's tokens are counted by the gateway).
 */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }) {
  const user = await currentUser();
  if (!user) return Response.json({ error: { message: "Sign in first." } }, { status: 401 });
  const userId = user.userId;
  const runtime = await getRuntime();
  const id = (await context.params).id;
  // The request's process saves it as the response ends; allow that a moment.
  let capture = await runtime.captures.find(id);
  for (let tries = 0; !capture && tries < 5; tries += 1) {
    await sleep(100);
    capture = await runtime.captures.find(id);
  }
  if (!capture || capture.userId !== userId) return Response.json({ error: { message: "No recording for that request." } }, { status: 404 });
  // The log row follows the capture once its tokens are counted (a tokenizer, for a stopped stream).
  let row = null;
  for (let tries = 0; !row && tries < 10; tries += 1) {
    if (tries > 0) await sleep(150);
    await runtime.logs.flush();
    row = await runtime.database.requestLog.findFirst({ where: { id, userId }, select: { promptTokens: true, completionTokens: true, usageEstimated: true } });
  }
  // Scrubbed when saved; shown by the viewer's role now (a capture from before that, a role since lowered).
  return Response.json({ exchanges: storedForViewer(capture.exchanges, user.role === "admin"), usage: row });
}
