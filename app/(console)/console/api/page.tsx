import { Badge, Card, InlineCode, PageHeader } from "@/app/_components/ui";
import { requireUser } from "@/lib/console/require-session";
import { openApiDocument } from "@/lib/openapi/build-document";

export const dynamic = "force-dynamic";

type Operation = { summary: string; tags: string[]; requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> } };

const METHOD_TONE = { get: "green", post: "indigo", patch: "amber", delete: "red" } as const;

/** The OpenAPI document, rendered: every endpoint with its body's fields. */
export default async function ApiReferencePage() {
  await requireUser("/console/api");
  const document = openApiDocument() as { paths: Record<string, Record<string, Operation>>; tags: { name: string }[] };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method: method as keyof typeof METHOD_TONE, operation })),
  );
  return (
    <>
      <PageHeader
        title="API reference"
        description="Every endpoint this gateway serves, from its OpenAPI 3.1 document."
        actions={
          <a href="/openapi.json" className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
            openapi.json
          </a>
        }
      />
      <div className="space-y-6">
        {document.tags.map(({ name }) => (
          <Card key={name}>
            <h2 className="mb-3 text-base font-semibold">{name}</h2>
            <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid={`api-${name}`}>
              {operations
                .filter((entry) => entry.operation.tags.includes(name))
                .map(({ path, method, operation }) => {
                  const body = operation.requestBody ? Object.entries(operation.requestBody.content)[0] : undefined;
                  const fields = Object.keys(body?.[1].schema?.properties ?? {});
                  const required = new Set(body?.[1].schema?.required ?? []);
                  return (
                    <li key={`${method} ${path}`} className="py-2 text-sm">
                      <div className="flex flex-wrap items-center gap-2">
                        <Badge tone={METHOD_TONE[method]}>{method.toUpperCase()}</Badge>
                        <code className="break-all">{path}</code>
                        <span className="text-zinc-500">
                          <InlineCode text={operation.summary} />
                        </span>
                      </div>
                      {fields.length > 0 && (
                        <p className="mt-1 break-words text-xs text-zinc-500">
                          {body![0]}: {fields.map((field) => (required.has(field) ? `${field}*` : field)).join(", ")}
                        </p>
                      )}
                    </li>
                  );
                })}
            </ul>
          </Card>
        ))}
      </div>
    </>
  );
}
