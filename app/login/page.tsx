import { redirect } from "next/navigation";
import { oidcEnabled, oidcName } from "@/lib/console/next-auth-options";
import { currentUser } from "@/lib/console/require-session";
import { returnPath } from "@/lib/console/return-path";
import { readSettings } from "@/lib/console/settings";
import { needsSetup } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  // Back to the console page the visitor was sent here from, once signed in.
  const returnTo = returnPath((await searchParams).callbackUrl);
  // A session that no longer holds (account disabled, deleted, signed out everywhere) stays here.
  if (await currentUser()) redirect(returnTo);
  const runtime = await getRuntime();
  if (await needsSetup(runtime)) redirect("/setup");
  const { openSignup } = await readSettings(runtime);
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <div className="mx-auto mb-3 flex h-10 w-10 items-center justify-center rounded-lg bg-indigo-600 text-lg font-bold text-white">G</div>
          <h1 className="text-xl font-semibold">Sign in to Model Gateway</h1>
        </div>
        <LoginForm oidcName={oidcEnabled ? oidcName : null} returnTo={returnTo} />
        {openSignup && (
          <p className="mt-6 text-center text-sm text-zinc-500">
            No account?{" "}
            <a className="font-medium text-indigo-600 hover:underline dark:text-indigo-400" href="/signup">
              Create one
            </a>
          </p>
        )}
      </div>
    </main>
  );
}
