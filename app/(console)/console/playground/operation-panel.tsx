"use client";

import { useEffect, useState } from "react";
import { Badge, Button, Card, ErrorNote, Field, Input, Textarea } from "@/app/_components/ui";

export type Mode = "chat" | "embeddings" | "images" | "speech";

type Outcome =
  | { kind: "embeddings"; dimensions: number; count: number; preview: number[]; promptTokens: number }
  | { kind: "images"; sources: string[] }
  | { kind: "speech"; url: string; type: string; bytes: number };

const ENDPOINT: Record<Exclude<Mode, "chat">, string> = {
  embeddings: "/v1/embeddings",
  images: "/v1/images/generations",
  speech: "/v1/audio/speech",
};

/**
 * The Playground's other modes: embeddings, image generation and speech, through the
 * same /v1 endpoints (and the same credentials) as any client.
 */
export function OperationPanel({ mode, model, headers }: { mode: Exclude<Mode, "chat">; model: string; headers: Record<string, string> }) {
  const [input, setInput] = useState("");
  const [voice, setVoice] = useState("alloy");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [elapsedMs, setElapsedMs] = useState<number | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new mode clears what the last one showed
  useEffect(() => {
    setOutcome(null);
    setError(null);
  }, [mode]);
  useEffect(() => () => (outcome?.kind === "speech" ? URL.revokeObjectURL(outcome.url) : undefined), [outcome]);

  async function run() {
    if (!input.trim() || !model) return;
    setPending(true);
    setError(null);
    setOutcome(null);
    const started = performance.now();
    const body =
      mode === "embeddings"
        ? { model, input: input.split("\n").filter((line) => line.trim()), encoding_format: "float" }
        : mode === "images"
          ? { model, prompt: input, response_format: "b64_json" }
          : { model, input, voice };
    try {
      const response = await fetch(ENDPOINT[mode], { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
      setElapsedMs(Math.round(performance.now() - started));
      if (!response.ok) {
        const text = await response.text();
        let message = `HTTP ${response.status}`;
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
        } catch {
          // not JSON
        }
        setError(message);
        return;
      }
      if (mode === "speech") {
        const blob = await response.blob();
        setOutcome({ kind: "speech", url: URL.createObjectURL(blob), type: blob.type, bytes: blob.size });
        return;
      }
      const json = (await response.json()) as {
        data: { embedding?: number[]; b64_json?: string; url?: string }[];
        usage?: { prompt_tokens?: number };
      };
      if (mode === "embeddings") {
        const first = json.data[0]?.embedding ?? [];
        setOutcome({ kind: "embeddings", dimensions: first.length, count: json.data.length, preview: first.slice(0, 8), promptTokens: json.usage?.prompt_tokens ?? 0 });
      } else {
        setOutcome({ kind: "images", sources: json.data.map((image) => (image.b64_json ? `data:image/png;base64,${image.b64_json}` : (image.url ?? ""))) });
      }
    } catch (thrown) {
      setError(thrown instanceof Error ? thrown.message : String(thrown));
    } finally {
      setPending(false);
    }
  }

  const label = mode === "embeddings" ? "Texts to embed (one per line)" : mode === "images" ? "Image prompt" : "Text to speak";
  return (
    <div data-testid={`operation-${mode}`}>
      <Card className="space-y-3">
        {mode === "speech" && (
          <Field label="Voice" htmlFor="pg-voice">
            <Input id="pg-voice" value={voice} onChange={(event) => setVoice(event.target.value)} />
          </Field>
        )}
        <Field label={label} htmlFor="pg-operation-input">
          <Textarea id="pg-operation-input" rows={4} value={input} onChange={(event) => setInput(event.target.value)} />
        </Field>
        <div className="flex items-center gap-2">
          <Button onClick={() => void run()} disabled={pending || !input.trim() || !model}>
            {pending ? "Running…" : "Run"}
          </Button>
          {elapsedMs !== null && !pending && <span className="text-xs text-zinc-500">{elapsedMs} ms</span>}
        </div>
        {error && <ErrorNote>{error}</ErrorNote>}
        {outcome?.kind === "embeddings" && (
          <div className="text-sm" data-testid="embedding-result">
            <p>
              <Badge tone="indigo">
                {outcome.count} vector{outcome.count === 1 ? "" : "s"}
              </Badge>{" "}
              {outcome.dimensions} dimensions · {outcome.promptTokens} tokens
            </p>
            <pre className="mt-2 overflow-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100">
              [{outcome.preview.map((value) => value.toFixed(4)).join(", ")}
              {outcome.dimensions > 8 ? ", …" : ""}]
            </pre>
          </div>
        )}
        {outcome?.kind === "images" && (
          <div className="grid gap-2 sm:grid-cols-2" data-testid="image-result">
            {outcome.sources.map((source, index) => (
              // biome-ignore lint/performance/noImgElement: generated images are data: or remote URLs, not assets to optimise
              <img key={index} src={source} alt={`Result ${index + 1}`} className="w-full rounded-md border border-zinc-200 dark:border-zinc-800" />
            ))}
          </div>
        )}
        {outcome?.kind === "speech" && (
          <div className="text-sm" data-testid="speech-result">
            {/* biome-ignore lint/a11y/useMediaCaption: generated speech has no caption track; its text is the request's input */}
            <audio controls src={outcome.url} className="w-full" />
            <p className="mt-1 text-xs text-zinc-500">
              {outcome.type || "audio"} · {outcome.bytes} bytes
            </p>
          </div>
        )}
      </Card>
    </div>
  );
}
