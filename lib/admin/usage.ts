import { answerUsageReport, parseUsageReport } from "@/lib/console/usage-report";
import { withAdmin } from "./with-admin";

/** GET /api/admin/usage?from=&to=&group_by=&format=: everyone's usage from the hourly rollups. */
export const adminUsage = withAdmin(async ({ runtime, request }) => answerUsageReport(runtime, parseUsageReport(request.url.searchParams)));
