import Link from "next/link";

/** "Nothing here", branded, with the ways back: the console, or the page that listed it. */
export function NotFoundNotice({ what = "page", back }: { what?: string; back?: { href: string; label: string } }) {
  return (
    <div className="mx-auto max-w-md py-16 text-center" data-testid="not-found">
      <div className="mb-6 flex items-center justify-center gap-2 font-semibold">
        <span className="flex h-8 w-8 items-center justify-center rounded-md bg-indigo-600 text-sm font-bold text-white">G</span>
        Model Gateway
      </div>
      <p className="text-sm font-medium text-indigo-600 dark:text-indigo-400">404</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">No such {what}</h1>
      <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">The address may be mistyped, or what it pointed to was deleted.</p>
      <div className="mt-6 flex flex-wrap justify-center gap-2">
        {back && (
          <Link href={back.href} className="rounded-md px-4 py-2 text-sm font-medium ring-1 ring-zinc-300 hover:bg-zinc-50 dark:ring-zinc-700 dark:hover:bg-zinc-800">
            {back.label}
          </Link>
        )}
        <Link href="/console" className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500">
          Go to the console
        </Link>
      </div>
    </div>
  );
}
