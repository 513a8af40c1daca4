"use client";

import { useActionState, useState, useTransition } from "react";
import { RowActions } from "@/app/_components/data-table";
import { Button, DoneNote, ErrorNote, Field, Input, Select } from "@/app/_components/ui";
import { useRowAction } from "@/app/_components/use-row-action";
import type { McpGrant } from "@/lib/tokens/mcp-grants";
import {
  createMcpServerAction,
  deleteMcpServerAction,
  grantMcpToolsAction,
  type McpFormState,
  type McpTestResult,
  setMcpServerEnabledAction,
  testMcpServerAction,
} from "./actions";

export function CreateMcpServerForm() {
  const [state, action, pending] = useActionState<McpFormState, FormData>(createMcpServerAction, { error: null, added: null });
  return (
    <form action={action} className="space-y-3" aria-label="Add an MCP server">
      <h2 className="text-base font-semibold">Add an MCP server</h2>
      <Field label="Name" htmlFor="mcp-name" hint="Lower-case letters, digits, - and _: the tools' prefix (<name>__<tool>) and the path /mcp/<name>.">
        <Input id="mcp-name" name="name" required pattern="[a-z0-9][a-z0-9_\-]{0,31}" placeholder="github" />
      </Field>
      <Field label="URL" htmlFor="mcp-url" hint="A remote MCP server speaking Streamable HTTP.">
        <Input id="mcp-url" name="url" type="url" required placeholder="https://api.githubcopilot.com/mcp/" />
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Header name" htmlFor="mcp-header-name" hint="Optional upstream credential.">
          <Input id="mcp-header-name" name="headerName" placeholder="Authorization" autoComplete="off" />
        </Field>
        <Field label="Header value" htmlFor="mcp-header-value" hint="Encrypted; never shown again.">
          <Input id="mcp-header-value" name="headerValue" type="password" placeholder="Bearer ghp_…" autoComplete="off" />
        </Field>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="public" /> Public: every token may use its tools
      </label>
      {state.error && <ErrorNote>{state.error}</ErrorNote>}
      {state.added && <DoneNote>Added {state.added}. Test it to see its tools.</DoneNote>}
      <Button type="submit" disabled={pending}>
        Add server
      </Button>
    </form>
  );
}

type TokenChoice = { id: string; label: string; grants: McpGrant[] };

export function McpServerActions({ server, tokens }: { server: { id: string; name: string; enabled: boolean }; tokens: TokenChoice[] }) {
  const { run, pending, error } = useRowAction();
  const [test, setTest] = useState<McpTestResult | null>(null);
  const [testing, startTest] = useTransition();
  return (
    <div className="space-y-2">
      <RowActions>
        <Button size="sm" variant="secondary" disabled={testing} onClick={() => startTest(async () => setTest(await testMcpServerAction(server.id)))}>
          {testing ? "Testing…" : "Test"}
        </Button>
        <Button size="sm" variant="secondary" disabled={pending} onClick={() => run(() => setMcpServerEnabledAction(server.id, !server.enabled))}>
          {server.enabled ? "Disable" : "Enable"}
        </Button>
        <Button
          size="sm"
          variant="secondary"
          className="text-red-700 dark:text-red-400"
          disabled={pending}
          onClick={() => {
            if (window.confirm(`Delete the MCP server ${server.name}? Tokens granted it lose its tools.`)) run(() => deleteMcpServerAction(server.id));
          }}
        >
          Delete
        </Button>
      </RowActions>
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
      {test && !test.ok && <ErrorNote>{test.error}</ErrorNote>}
      {test?.ok && <ToolGrants server={server.name} tools={test.tools} latencyMs={test.latencyMs} tokens={tokens} />}
    </div>
  );
}

function ToolGrants({ server, tools, latencyMs, tokens }: { server: string; tools: { name: string; description: string | null }[]; latencyMs: number; tokens: TokenChoice[] }) {
  const [tokenId, setTokenId] = useState(tokens[0]?.id ?? "");
  const granted = tokens.find((token) => token.id === tokenId)?.grants.find((grant) => grant.server === server);
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(granted?.tools ?? []));
  const { run, pending, error } = useRowAction();
  const [saved, setSaved] = useState(false);
  return (
    <div className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800" data-testid="mcp-tools">
      <p className="text-xs text-zinc-500">
        Initialized and listed {tools.length} {tools.length === 1 ? "tool" : "tools"} in {latencyMs} ms.
      </p>
      <ul className="mt-2 space-y-1">
        {tools.map((tool) => (
          <li key={tool.name} className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              aria-label={`Grant ${tool.name}`}
              className="mt-1"
              checked={chosen.has(tool.name)}
              onChange={(event) => {
                const next = new Set(chosen);
                if (event.target.checked) next.add(tool.name);
                else next.delete(tool.name);
                setChosen(next);
                setSaved(false);
              }}
            />
            <span className="min-w-0">
              <code className="text-xs">{tool.name}</code>
              {tool.description && <span className="block break-words text-xs text-zinc-500">{tool.description}</span>}
            </span>
          </li>
        ))}
      </ul>
      {tokens.length > 0 && (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <label htmlFor={`grant-token-${server}`} className="text-sm">
            Token
          </label>
          <Select
            id={`grant-token-${server}`}
            value={tokenId}
            onChange={(event) => {
              setTokenId(event.target.value);
              const grant = tokens.find((token) => token.id === event.target.value)?.grants.find((entry) => entry.server === server);
              setChosen(new Set(grant?.tools ?? []));
              setSaved(false);
            }}
            className="max-w-[16rem]"
          >
            {tokens.map((token) => (
              <option key={token.id} value={token.id}>
                {token.label}
              </option>
            ))}
          </Select>
          <Button
            size="sm"
            disabled={pending || !tokenId}
            onClick={() =>
              run(async () => {
                const result = await grantMcpToolsAction(tokenId, server, [...chosen]);
                setSaved(result.ok);
                return result;
              })
            }
          >
            Grant {chosen.size} {chosen.size === 1 ? "tool" : "tools"}
          </Button>
        </div>
      )}
      {saved && <DoneNote>Saved: the token sees exactly these tools of {server} from its next call.</DoneNote>}
      {error && <ErrorNote>{error}</ErrorNote>}
    </div>
  );
}
