import { currentUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The upstream exchange recorded for one Playground request, for its owner only. */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }) {
  const userId = (await currentUser())?.userId;
  if (!userId) return Response.json({ error: { message: "Sign in first." } }, { status: 401 });
  const captures = (await getRuntime()).captures;
  const id = (await context.params).id;
  // The request's process saves it as the response ends; allow that a moment.
  let capture = await captures.find(id);
  for (let tries = 0; !capture && tries < 5; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    capture = await captures.find(id);
  }
  if (!capture || capture.userId !== userId) return Response.json({ error: { message: "No recording for that request." } }, { status: 404 });
  return Response.json({ exchanges: capture.exchanges });
}
