import { notFound } from "next/navigation";
import { readSettings } from "@/lib/console/settings";
import { getRuntime } from "@/lib/runtime";
import { AccountForm } from "@/app/_components/account-form";
import { signUp } from "./actions";

export const dynamic = "force-dynamic";

export default async function SignupPage() {
  if (!(await readSettings(await getRuntime())).openSignup) notFound();
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <h1 className="mb-6 text-center text-xl font-semibold">Create your account</h1>
        <AccountForm action={signUp} submitLabel="Create account" />
      </div>
    </main>
  );
}
