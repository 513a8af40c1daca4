import { formatNumber } from "@/app/_components/format";
import { Table, Td, Th } from "@/app/_components/data-table";
import { Card } from "@/app/_components/ui";
import { retentionStatus } from "@/lib/console/retention-status";
import type { Runtime } from "@/lib/runtime";

/** What each store keeps, for how long, and how many rows it holds (admins). */
export async function StorageCard({ runtime }: { runtime: Runtime }) {
  const status = await retentionStatus(runtime);
  return (
    <Card className="min-w-0">
      <h2 className="mb-1 text-sm font-semibold">Storage and retention</h2>
      <p className="mb-3 text-xs text-zinc-500">
        Expired rows are deleted in small batches every {status.sweepEvery}; usage is kept by the hour as rows are written, so totals and quotas outlive the rows.
      </p>
      <Table>
        <thead>
          <tr>
            <Th>Store</Th>
            <Th>Kept for</Th>
            <Th className="text-right">Rows</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="storage-retention">
          {status.stores.map((store) => (
            <tr key={store.name}>
              <Td label="Store" wide>
                {store.name}
              </Td>
              <Td label="Kept for">
                <span className="tabular-nums">{store.keptFor}</span>
                {store.setting && <span className="ml-2 font-mono text-xs text-zinc-500">{store.setting}</span>}
              </Td>
              <Td label="Rows" className="tabular-nums xl:text-right">
                {store.rows === null ? "expire on their own" : `${store.estimate ? "about " : ""}${formatNumber(store.rows)}`}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}
