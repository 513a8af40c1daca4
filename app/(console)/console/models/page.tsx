import { PageHeader } from "@/app/_components/ui";
import { requireAdmin } from "@/lib/console/require-session";
import { lastDays, usageStats } from "@/lib/console/usage-stats";
import { listModels } from "@/lib/models/model-service";
import { STRATEGIES } from "@/lib/routing/pick-channels";
import { getRuntime } from "@/lib/runtime";
import { ModelManager } from "./model-manager";
import { naturalOrder } from "@/lib/console/natural-order";

export const dynamic = "force-dynamic";

export default async function ModelsPage() {
  await requireAdmin("/console/models");
  const runtime = await getRuntime();
  const [models, usage] = await Promise.all([listModels(runtime).then((list) => list.sort((a, b) => naturalOrder(a.name, b.name))), usageStats(runtime, "model", lastDays(7))]);
  return (
    <>
      <PageHeader
        title="Models"
        description="Every model name the channels serve. A record adds fallbacks (other models tried in order when this one cannot serve), how its channels share traffic within a priority, and its context window."
      />
      <ModelManager
        models={models}
        strategies={[...STRATEGIES]}
        usage={Object.fromEntries([...usage].map(([name, row]) => [name, { requests: row.requests, errors: row.errors, costUsd: row.costUsd, latencyP50: row.latencyP50 }]))}
      />
    </>
  );
}
