// Agent-sized request bodies for the bench, grown from the coding-agent fixtures in tests/:
// a Claude Code turn for /v1/messages and a Codex session as /v1/responses and as chat
// completions, each
// resending its whole conversation as real sessions do. A body grows by repeating the
// fixture's tool-call turns (file reads, shell outputs) with fresh call ids until it
// reaches the size asked for, so its shape stays an agent's: tools, thinking, tool results.
import fs from "node:fs";
import path from "node:path";

const FIXTURES = path.resolve(import.meta.dirname, "../../tests/fixtures/coding-agents");
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), "utf8")) as { headers: Record<string, string>; request: any };

/** Returns `count` copies of `turns` whose call ids are made unique per copy. */
function copies<T>(turns: T[], count: number, renameIds: (turn: T, prefix: string) => T): T[] {
  const out: T[] = [];
  for (let index = 0; index < count; index += 1) for (const turn of turns) out.push(renameIds(structuredClone(turn), `r${index}_`));
  return out;
}

/** Grows a body by adding copies of repeated turns until its JSON reaches about `bytes`. */
function grow(build: (count: number) => unknown, bytes: number): string {
  const base = JSON.stringify(build(0)).length;
  const perCopy = JSON.stringify(build(1)).length - base;
  return JSON.stringify(build(Math.max(0, Math.round((bytes - base) / perCopy))));
}

/** A Claude Code /v1/messages turn of about `bytes`, streamed, for the model `model`. */
export function claudeCodeBody(bytes: number, model: string): string {
  const { request } = fixture("claude-code-turn.json");
  const [first, ...rest] = request.messages as any[];
  // Messages 1..12: six assistant tool calls each answered by a user tool result.
  const turns = rest.slice(0, 12);
  const renameIds = (message: any, prefix: string) => {
    for (const block of message.content) {
      if (block.type === "tool_use") block.id = `${prefix}${block.id}`;
      if (block.type === "tool_result") block.tool_use_id = `${prefix}${block.tool_use_id}`;
    }
    return message;
  };
  return grow((count) => ({ ...request, model, stream: true, messages: [first, ...copies(turns, count, renameIds), ...rest] }), bytes);
}

/** The headers Claude Code sends with it. */
export const claudeCodeHeaders = (): Record<string, string> => {
  const { headers } = fixture("claude-code-turn.json");
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(authorization|x-api-key|content-length|host)$/i.test(name)));
};

/** A Codex turn for /v1/responses of about `bytes`, as Codex sends it (streamed, store false), for the model `model`. */
export function codexResponsesBody(bytes: number, model: string): string {
  const { request } = fixture("codex-turn.json");
  const input = request.input as any[];
  // Items 3..16: reasoning, shell and patch calls, each answered by its output.
  const turns = input.slice(3, 17);
  const renameIds = (item: any, prefix: string) => {
    if (item.call_id) item.call_id = `${prefix}${item.call_id}`;
    return item;
  };
  return grow((count) => ({ ...request, model, stream: true, input: [...input.slice(0, 3), ...copies(turns, count, renameIds), ...input.slice(3)] }), bytes);
}

/** A Codex session as a streamed chat completions request of about `bytes` (Codex's chat wire format). */
export function codexChatBody(bytes: number, model: string): string {
  const { request } = fixture("codex-turn.json");
  const messages: any[] = [{ role: "system", content: request.instructions }];
  let calls: any[] = [];
  for (const item of request.input as any[]) {
    if (item.type === "message") {
      const text = item.content.map((part: any) => part.text ?? "").join("");
      messages.push({ role: item.role, content: text });
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      calls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments ?? JSON.stringify({ input: item.input }) } });
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      if (calls.length > 0) messages.push({ role: "assistant", content: null, tool_calls: calls });
      calls = [];
      messages.push({ role: "tool", tool_call_id: item.call_id, content: typeof item.output === "string" ? item.output : JSON.stringify(item.output) });
    }
  }
  const tools = (request.tools as any[]).map((tool) =>
    tool.type === "function"
      ? { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }
      : {
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] } },
        },
  );
  // The first tool-call turn onwards repeats: an assistant call and the tool's output.
  const start = messages.findIndex((message) => message.tool_calls);
  const head = messages.slice(0, start);
  const turns = messages.slice(start, -2);
  const tail = messages.slice(start);
  const renameIds = (message: any, prefix: string) => {
    for (const call of message.tool_calls ?? []) call.id = `${prefix}${call.id}`;
    if (message.tool_call_id) message.tool_call_id = `${prefix}${message.tool_call_id}`;
    return message;
  };
  return grow(
    (count) => ({
      model,
      messages: [...head, ...copies(turns, count, renameIds), ...tail],
      tools,
      tool_choice: "auto",
      parallel_tool_calls: true,
      stream: true,
      stream_options: { include_usage: true },
      prompt_cache_key: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    }),
    bytes,
  );
}
