import { redirect } from "next/navigation";
import { needsSetup } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";
import { AccountForm } from "@/app/_components/account-form";
import { createFirstAdmin } from "./actions";

export const dynamic = "force-dynamic";

export default async function SetupPage() {
  if (!(await needsSetup(await getRuntime()))) redirect("/login");
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <h1 className="mb-2 text-center text-xl font-semibold">Welcome to Model Gateway</h1>
        <p className="mb-6 text-center text-sm text-zinc-500">
          Create the first admin account with the setup code the gateway printed when it started (also in the <code>setup-code</code> file of its data directory). This page closes
          once the account exists.
        </p>
        <AccountForm action={createFirstAdmin} submitLabel="Create admin account" confirm setupCode />
      </div>
    </main>
  );
}
