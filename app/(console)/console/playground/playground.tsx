"use client";

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText, type ModelMessage } from "ai";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { CopyButton } from "@/app/_components/copy-button";
import { Markdown } from "@/app/_components/markdown";
import { Badge, Button, Card, ErrorNote, Field, Input, Select, Textarea, cx } from "@/app/_components/ui";
import { OperationPanel, type Mode } from "./operation-panel";
import { describeError, toCurl } from "./playground-helpers";

type Stats = { inputTokens?: number; outputTokens?: number; firstTokenMs?: number; totalMs: number; counted?: boolean };
/** A reply a fallback model served: the model asked for, and the one that answered (when the answer names it). */
type Fallback = { requested: string; served: string | null };
type Turn = { role: "user" | "assistant"; content: string; stats?: Stats; error?: string; stopped?: boolean; fallback?: Fallback };
type Exchange = {
  channel?: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean };
  error?: string;
};
type Sent = { url: string; headers: Record<string, string>; body: string; requestId: string | null; status: number };
type Usage = { promptTokens: number; completionTokens: number; usageEstimated: boolean } | null;

const SESSION = "session";
const PASTE = "paste";

export function Playground({ models, defaultModel, tokens }: { models: string[]; defaultModel: string; tokens: { id: string; name: string; keyPrefix: string }[] }) {
  const [mode, setMode] = useState<Mode>("chat");
  const [model, setModel] = useState(defaultModel);
  const [system, setSystem] = useState("");
  // null until the user moves the slider: the request then carries no temperature and the
  // model's own default applies (reasoning models refuse any value).
  const [temperature, setTemperature] = useState<number | null>(null);
  const [maxTokens, setMaxTokens] = useState("");
  const [topP, setTopP] = useState(1);
  const [credential, setCredential] = useState(SESSION);
  const [pastedKey, setPastedKey] = useState("");
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState("");
  const [streaming, setStreaming] = useState(false);
  const [sent, setSent] = useState<Sent | null>(null);
  const [exchanges, setExchanges] = useState<Exchange[] | null>(null);
  const abort = useRef<AbortController | null>(null);
  const bottom = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: each new turn scrolls the conversation to its end
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [turns]);

  function updateLast(change: (turn: Turn) => Turn) {
    setTurns((current) => [...current.slice(0, -1), change(current.at(-1)!)]);
  }

  /** Changes one reply later on (its usage arrives after the stream ended), if it is still there. */
  function updateTurn(index: number, change: (turn: Turn) => Turn) {
    setTurns((current) => (current[index]?.role === "assistant" ? current.map((turn, at) => (at === index ? change(turn) : turn)) : current));
  }

  async function send() {
    const text = input.trim();
    if (!text || streaming || !model) return;
    // Failed exchanges stay on screen but are not sent again: the error reply and the
    // message that got it.
    const history: Turn[] = [...sendable(turns), { role: "user", content: text }];
    setTurns([...turns, { role: "user", content: text }, { role: "assistant", content: "" }]);
    const replyIndex = turns.length + 1;
    setInput("");
    setStreaming(true);
    setExchanges(null);
    const controller = new AbortController();
    abort.current = controller;
    const started = performance.now();
    let firstTokenMs: number | undefined;
    let requestId: string | null = null;
    let fallbackFrom: string | null = null;
    let stopped = false;

    // The gateway's own /v1 endpoint, as the user's code would call it; the session
    // cookie (or a chosen token) authenticates, and the upstream exchange is recorded.
    const headers: Record<string, string> = { "x-gateway-console": "1", "x-gateway-capture": "1" };
    if (credential !== SESSION && credential !== PASTE) headers["x-gateway-token-id"] = credential;
    const provider = createOpenAICompatible({
      name: "gateway",
      baseURL: `${window.location.origin}/v1`,
      apiKey: credential === PASTE ? pastedKey.trim() : undefined,
      headers,
      includeUsage: true,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        requestId = response.headers.get("x-request-id");
        // Set when the picked model could not serve and one of its fallbacks answered.
        fallbackFrom = response.headers.get("x-gateway-fallback-from");
        setSent({
          url: String(url),
          headers: Object.fromEntries(new Headers(init?.headers).entries()),
          body: String(init?.body ?? ""),
          requestId,
          status: response.status,
        });
        return response;
      },
    });
    const messages: ModelMessage[] = history.map((turn) => ({ role: turn.role, content: turn.content }));
    try {
      const result = streamText({
        model: provider.chatModel(model),
        system: system.trim() || undefined,
        messages,
        temperature: temperature ?? undefined,
        topP: topP === 1 ? undefined : topP,
        maxOutputTokens: maxTokens ? Number(maxTokens) : undefined,
        maxRetries: 0,
        abortSignal: controller.signal,
      });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta" || part.type === "reasoning-delta") {
          if (part.type === "text-delta") {
            firstTokenMs ??= Math.round(performance.now() - started);
            updateLast((turn) => ({ ...turn, content: turn.content + part.text }));
          }
        } else if (part.type === "finish-step") {
          const served = part.response.modelId;
          if (fallbackFrom) updateLast((turn) => ({ ...turn, fallback: { requested: fallbackFrom!, served: served && served !== fallbackFrom ? served : null } }));
        } else if (part.type === "finish") {
          const usage = part.totalUsage;
          updateLast((turn) => ({
            ...turn,
            stats: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, firstTokenMs, totalMs: Math.round(performance.now() - started) },
          }));
        } else if (part.type === "error") {
          updateLast((turn) => ({ ...turn, error: describeError(part.error) }));
        } else if (part.type === "abort") {
          stopped = true;
          updateLast((turn) => ({ ...turn, stopped: true, stats: { firstTokenMs, totalMs: Math.round(performance.now() - started) } }));
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) updateLast((turn) => ({ ...turn, error: describeError(error) }));
      else {
        stopped = true;
        updateLast((turn) => ({ ...turn, stopped: true, stats: { firstTokenMs, totalMs: Math.round(performance.now() - started) } }));
      }
    } finally {
      setStreaming(false);
      abort.current = null;
      void loadExchanges(requestId, stopped ? replyIndex : null);
    }
  }

  /** The upstream exchange for the inspector; for a stopped reply, the tokens the gateway counted. */
  async function loadExchanges(requestId: string | null, stoppedReply: number | null) {
    const response = requestId ? await fetch(`/api/console/captures/${requestId}`).catch(() => null) : null;
    if (!response?.ok) return setExchanges([]);
    const capture = (await response.json()) as { exchanges: Exchange[]; usage: Usage };
    setExchanges(capture.exchanges);
    const usage = capture.usage;
    if (stoppedReply !== null && usage) {
      updateTurn(stoppedReply, (turn) => ({
        ...turn,
        stats: { ...(turn.stats ?? { totalMs: 0 }), inputTokens: usage.promptTokens, outputTokens: usage.completionTokens, counted: usage.usageEstimated },
      }));
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  function reset() {
    abort.current?.abort();
    setTurns([]);
    setSent(null);
    setExchanges(null);
  }

  return (
    <div className="grid gap-4 lg:grid-cols-[18rem_1fr]">
      {/* On a phone the chat comes first and the settings follow it. */}
      <Card className="order-2 space-y-4 self-start lg:order-1">
        <Field label="Mode" htmlFor="pg-mode">
          <Select id="pg-mode" value={mode} onChange={(event) => setMode(event.target.value as Mode)}>
            <option value="chat">Chat</option>
            <option value="embeddings">Embeddings</option>
            <option value="images">Images</option>
            <option value="speech">Speech</option>
          </Select>
        </Field>
        <Field label="Model" htmlFor="pg-model">
          <Select id="pg-model" value={model} onChange={(event) => setModel(event.target.value)}>
            {models.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </Select>
        </Field>
        <Field label="Chat as" htmlFor="pg-credential" hint="A token applies its allowlist, expiry, quota and rate limit.">
          <Select id="pg-credential" value={credential} onChange={(event) => setCredential(event.target.value)}>
            <option value={SESSION}>Me (console session)</option>
            {tokens.map((token) => (
              <option key={token.id} value={token.id}>
                Token: {token.name} ({token.keyPrefix})
              </option>
            ))}
            <option value={PASTE}>Paste a key…</option>
          </Select>
        </Field>
        {credential === PASTE && (
          <Field label="API key" htmlFor="pg-key">
            <Input id="pg-key" type="password" value={pastedKey} onChange={(event) => setPastedKey(event.target.value)} placeholder="sk-…" autoComplete="off" />
          </Field>
        )}
        {mode === "chat" && (
          <>
            <Field label="System prompt" htmlFor="pg-system">
              <Textarea id="pg-system" rows={3} value={system} onChange={(event) => setSystem(event.target.value)} placeholder="You are a helpful assistant." />
            </Field>
            <Field label={`Temperature: ${temperature === null ? "model default" : temperature.toFixed(1)}`} htmlFor="pg-temperature">
              <div className="flex items-center gap-2">
                <input
                  id="pg-temperature"
                  type="range"
                  min={0}
                  max={2}
                  step={0.1}
                  value={temperature ?? 1}
                  onChange={(event) => setTemperature(Number(event.target.value))}
                  className={cx("w-full accent-indigo-600", temperature === null && "opacity-50")}
                />
                {temperature !== null && (
                  <Button type="button" size="sm" variant="ghost" onClick={() => setTemperature(null)}>
                    Default
                  </Button>
                )}
              </div>
            </Field>
            <Field label={`Top P: ${topP.toFixed(2)}`} htmlFor="pg-top-p">
              <input
                id="pg-top-p"
                type="range"
                min={0}
                max={1}
                step={0.05}
                value={topP}
                onChange={(event) => setTopP(Number(event.target.value))}
                className="w-full accent-indigo-600"
              />
            </Field>
            <Field label="Max tokens" htmlFor="pg-max-tokens" hint="Empty for the model's default.">
              <Input id="pg-max-tokens" type="number" min={1} value={maxTokens} onChange={(event) => setMaxTokens(event.target.value)} />
            </Field>
          </>
        )}
      </Card>

      {mode !== "chat" ? (
        <div className="order-1 min-w-0 lg:order-2">
          <OperationPanel mode={mode} model={model} headers={credentialHeaders(credential, pastedKey)} />
        </div>
      ) : (
        <div className="order-1 flex min-w-0 flex-col gap-4 lg:order-2">
          <Card className="flex min-h-[24rem] flex-col p-0">
            <div className="flex-1 space-y-4 overflow-y-auto p-4" aria-live="polite" data-testid="conversation">
              {turns.length === 0 && <p className="py-16 text-center text-sm text-zinc-500">Send a message to start. Enter sends, Shift+Enter adds a line.</p>}
              {turns.map((turn, index) => (
                <Message key={index} turn={turn} streaming={streaming && index === turns.length - 1} />
              ))}
              <div ref={bottom} />
            </div>
            <div className="border-t border-zinc-200 p-3 dark:border-zinc-800">
              <label htmlFor="pg-input" className="sr-only">
                Message
              </label>
              <Textarea id="pg-input" rows={2} value={input} onChange={(event) => setInput(event.target.value)} onKeyDown={onKeyDown} placeholder="Message the model…" />
              <div className="mt-2 flex flex-wrap items-center justify-between gap-2">
                <Button variant="ghost" onClick={reset} disabled={turns.length === 0}>
                  Reset conversation
                </Button>
                {streaming ? (
                  <Button variant="danger" onClick={() => abort.current?.abort()}>
                    Stop
                  </Button>
                ) : (
                  <Button onClick={() => void send()} disabled={!input.trim() || !model}>
                    Send
                  </Button>
                )}
              </div>
            </div>
          </Card>
          {sent && <Inspector sent={sent} exchanges={exchanges} />}
        </div>
      )}
    </div>
  );
}

/** The credentials the Playground calls /v1 with: the session, one of the user's tokens, or a pasted key. */
function credentialHeaders(credential: string, pastedKey: string): Record<string, string> {
  if (credential === PASTE) return { authorization: `Bearer ${pastedKey.trim()}` };
  const headers: Record<string, string> = { "x-gateway-console": "1" };
  if (credential !== SESSION) headers["x-gateway-token-id"] = credential;
  return headers;
}

/** The turns to send again: everything but failed replies and the messages that got them. */
function sendable(turns: Turn[]): Turn[] {
  return turns.filter((turn, index) => !turn.error && !(turn.role === "user" && turns[index + 1]?.error));
}

function Message({ turn, streaming }: { turn: Turn; streaming: boolean }) {
  const mine = turn.role === "user";
  return (
    <div className={cx("flex", mine ? "justify-end" : "justify-start")}>
      <div
        data-testid={mine ? "user-message" : "assistant-message"}
        className={cx("max-w-[90%] rounded-lg px-3 py-2", mine ? "bg-indigo-600 text-white" : "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100")}
      >
        {mine ? (
          <p className="whitespace-pre-wrap text-sm">{turn.content}</p>
        ) : turn.content ? (
          <Markdown text={turn.content} />
        ) : streaming ? (
          <span className="text-sm text-zinc-500">…</span>
        ) : null}
        {turn.error && <ErrorNote>{turn.error}</ErrorNote>}
        {turn.fallback && (
          <p className="mt-1 text-xs text-amber-700 dark:text-amber-400" data-testid="answered-by" title={`${turn.fallback.requested} could not answer; its fallback did.`}>
            {turn.fallback.served ? `Answered by ${turn.fallback.served}, a fallback of ${turn.fallback.requested}.` : `A fallback of ${turn.fallback.requested} answered.`}
          </p>
        )}
        {!mine && (turn.stats || turn.stopped) && (
          <p className="mt-1 flex flex-wrap gap-2 text-xs text-zinc-500" data-testid="reply-stats">
            {turn.stopped && <Badge tone="amber">Stopped</Badge>}
            {turn.stats?.inputTokens !== undefined && (
              <span>
                {turn.stats.inputTokens} in · {turn.stats.outputTokens} out tokens{turn.stats.counted && " (counted by the gateway)"}
              </span>
            )}
            {turn.stats?.firstTokenMs !== undefined && <span>first token {turn.stats.firstTokenMs} ms</span>}
            {turn.stats && <span>total {turn.stats.totalMs} ms</span>}
          </p>
        )}
      </div>
    </div>
  );
}

function Inspector({ sent, exchanges }: { sent: Sent; exchanges: Exchange[] | null }) {
  const curl = toCurl(sent);
  return (
    <Card>
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">Last request {sent.requestId && <span className="font-mono text-xs font-normal text-zinc-500">{sent.requestId}</span>}</h2>
        <CopyButton text={curl} label="Copy as curl" />
      </div>
      <details className="text-sm">
        <summary className="cursor-pointer text-zinc-600 dark:text-zinc-300">Sent to the gateway</summary>
        <pre className="mt-2 max-h-72 overflow-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100" data-testid="sent-request">
          {curl}
        </pre>
      </details>
      {exchanges === null ? (
        <p className="mt-2 text-xs text-zinc-500">Loading the upstream exchange…</p>
      ) : exchanges.length === 0 ? (
        <p className="mt-2 text-xs text-zinc-500" data-testid="no-upstream-call">
          {sent.status >= 400
            ? `No upstream call: the gateway answered HTTP ${sent.status} itself, before routing to any channel (the reason is in the reply above).`
            : "No upstream call: the built-in mock answered inside the gateway."}
        </p>
      ) : (
        exchanges.map((exchange, index) => (
          <details key={index} className="mt-2 text-sm" open={index === exchanges.length - 1}>
            <summary className="cursor-pointer text-zinc-600 dark:text-zinc-300">
              Upstream: {exchange.request.method} {exchange.request.url || `channel “${exchange.channel ?? "?"}”`} → {exchange.response?.status ?? exchange.error}
            </summary>
            <div className="mt-2 grid gap-2 xl:grid-cols-2">
              <pre className="max-h-96 overflow-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100" data-testid="upstream-request">
                {JSON.stringify(exchange.request.headers, null, 2)}
                {"\n\n"}
                {prettyJson(exchange.request.body)}
              </pre>
              <pre className="max-h-96 overflow-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100" data-testid="upstream-response">
                {exchange.response
                  ? `HTTP ${exchange.response.status}\n${JSON.stringify(exchange.response.headers, null, 2)}\n\n${exchange.response.body}${exchange.response.truncated ? "\n[truncated]" : ""}`
                  : exchange.error}
              </pre>
            </div>
          </details>
        ))
      )}
    </Card>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
