import { headers } from "next/headers";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const host = (await headers()).get("host") ?? "localhost:3000";
  const baseUrl = `http://${host}/v1`;
  return (
    <main className="mx-auto max-w-2xl px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Model Gateway</h1>
      <p className="mt-3 text-zinc-600 dark:text-zinc-400">
        Point your OpenAI SDK at this deployment with a platform-issued <code>sk-</code> key.
      </p>
      <a href="/console" className="mt-6 inline-flex rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500">
        Open the console
      </a>
      <section className="mt-8 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
        <h2 className="text-sm font-medium uppercase tracking-wide text-zinc-500">Base URL</h2>
        <code className="mt-2 block font-mono text-sm">{baseUrl}</code>
      </section>
      <pre className="mt-6 overflow-x-auto rounded-lg bg-zinc-100 p-4 text-sm dark:bg-zinc-900">
        {`curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $GATEWAY_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"mock-chat","messages":[{"role":"user","content":"Hello"}]}'`}
      </pre>
    </main>
  );
}
