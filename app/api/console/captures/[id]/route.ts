import { getServerSession } from "next-auth";
import { authOptions } from "@/lib/auth/next-auth-options";
import { getRuntime } from "@/lib/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The upstream exchange recorded for one Playground request, for its owner only. */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }) {
  const session = await getServerSession(authOptions);
  const userId = (session?.user as { id?: string } | undefined)?.id;
  if (!userId) return Response.json({ error: { message: "Sign in first." } }, { status: 401 });
  const capture = (await getRuntime()).captures.get((await context.params).id);
  if (!capture || capture.userId !== userId) return Response.json({ error: { message: "No recording for that request." } }, { status: 404 });
  return Response.json({ exchanges: capture.exchanges });
}
