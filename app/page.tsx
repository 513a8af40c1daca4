import { headers } from "next/headers";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const headerList = await headers();
  const host = headerList.get("x-forwarded-host") ?? headerList.get("host") ?? "localhost:3000";
  const origin = `${headerList.get("x-forwarded-proto") ?? "http"}://${host}`;
  const clients = [
    ["OpenAI SDKs", `${origin}/v1`, "Authorization: Bearer"],
    ["Anthropic SDK, Claude Code", origin, "x-api-key or Authorization: Bearer"],
    ["Gemini SDK", origin, "x-goog-api-key or ?key="],
  ];
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Model Gateway</h1>
      <p className="mt-3 text-zinc-600 dark:text-zinc-400">
        Point the OpenAI, Anthropic or Gemini SDK at this deployment with a platform-issued <code>sk-</code> key; any model here answers in each format.
      </p>
      <a href="/console" className="mt-6 inline-flex rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500">
        Open the console
      </a>
      <section className="mt-8 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
        <h2 className="text-sm font-medium uppercase tracking-wide text-zinc-500">Base URL per client</h2>
        <dl className="mt-2 space-y-2 text-sm">
          {clients.map(([name, url, auth]) => (
            <div key={name} className="sm:flex sm:gap-4">
              <dt className="text-zinc-500 sm:w-56 sm:shrink-0">{name}</dt>
              <dd className="min-w-0">
                <code className="font-mono break-all">{url}</code> <span className="text-xs text-zinc-500">({auth})</span>
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <pre className="mt-6 whitespace-pre-wrap break-all rounded-lg bg-zinc-100 p-4 text-sm dark:bg-zinc-900">
        {`curl ${origin}/v1/chat/completions \\
  -H "Authorization: Bearer $GATEWAY_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"mock-chat","messages":[{"role":"user","content":"Hello"}]}'`}
      </pre>
    </main>
  );
}
