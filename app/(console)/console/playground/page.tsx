import { PageHeader } from "@/app/_components/ui";
import { requireUser } from "@/lib/console/require-session";
import { healthyModel } from "@/lib/console/healthy-model";
import { getRuntime } from "@/lib/runtime";
import { Playground } from "./playground";
import { naturalOrder } from "@/lib/console/natural-order";

export const dynamic = "force-dynamic";

export default async function PlaygroundPage() {
  const user = await requireUser("/console/playground");
  const runtime = await getRuntime();
  const models = [...runtime.channels.models().keys()].sort(naturalOrder);
  const defaultModel = await healthyModel(runtime, models);
  const tokens = await runtime.database.token.findMany({
    where: user.role === "admin" ? {} : { userId: user.userId },
    select: { id: true, name: true, keyPrefix: true },
    orderBy: { createdAt: "desc" },
  });
  return (
    <>
      <PageHeader title="Playground" description="Chat through the same /v1/chat/completions endpoint your code uses." />
      <Playground models={models} defaultModel={defaultModel} tokens={tokens} />
    </>
  );
}
