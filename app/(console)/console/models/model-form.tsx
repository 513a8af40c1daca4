"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { Button, Card, ErrorNote, Field, Input, Select } from "@/app/_components/ui";
import type { ModelJson } from "@/lib/models/model-service";
import { saveModelAction } from "./actions";

const STRATEGY_HELP: Record<string, string> = {
  weighted: "random, by each channel's weight",
  latency: "the channel answering first fastest",
  "least-busy": "the channel with the fewest requests in flight",
  cost: "the cheapest channel by its price",
};

/** Creates a model's record, or edits one; a model that only channels name gets its record on the first save. */
export function ModelForm({
  model,
  names,
  strategies,
  onCancel,
  onSaved,
}: {
  model: ModelJson | null;
  names: string[];
  strategies: string[];
  onCancel: () => void;
  onSaved: (name: string) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const router = useRouter();
  const label = model ? `Edit model ${model.name}` : "Add model";

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const window = String(form.get("contextWindow") ?? "").trim();
    const input = {
      name: String(form.get("name") ?? "").trim(),
      strategy: String(form.get("strategy") ?? "weighted"),
      fallbacks: String(form.get("fallbacks") ?? "")
        .split(/[\n,]/)
        .map((name) => name.trim())
        .filter(Boolean),
      contextWindow: window ? Number(window) : null,
    };
    startTransition(async () => {
      const result = await saveModelAction(model?.id ?? null, input);
      if (!result.ok) return setError(result.error);
      onSaved(input.name);
      router.refresh();
    });
  }

  return (
    <Card>
      <form onSubmit={submit} className="space-y-4" aria-label={label}>
        <h2 className="text-base font-semibold">{model ? `Edit “${model.name}”` : "New model record"}</h2>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <Field label="Name" htmlFor="model-name" hint="The public name clients send.">
            <Input id="model-name" name="name" required maxLength={200} defaultValue={model?.name} readOnly={model !== null} list="model-names" />
          </Field>
          <Field label="Strategy" htmlFor="model-strategy" hint={`Within a priority: ${strategies.map((name) => `${name}, ${STRATEGY_HELP[name] ?? name}`).join("; ")}.`}>
            <Select id="model-strategy" name="strategy" defaultValue={model?.strategy ?? "weighted"}>
              {strategies.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Fallbacks" htmlFor="model-fallbacks" hint="Other models, in order, comma-separated: tried when every channel failed or the prompt is too long.">
            <Input id="model-fallbacks" name="fallbacks" defaultValue={model?.fallbacks.join(", ")} placeholder="e.g. claude-sonnet-4, gemini-2.5-pro" list="model-names" />
          </Field>
          <Field label="Context window" htmlFor="model-context" hint="Tokens per request; empty when unknown.">
            <Input id="model-context" name="contextWindow" type="number" min={1} step={1} defaultValue={model?.contextWindow ?? undefined} />
          </Field>
        </div>
        <datalist id="model-names">
          {names.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        {error && <ErrorNote>{error}</ErrorNote>}
        <div className="flex gap-2">
          <Button type="submit" disabled={pending}>
            {pending ? "Saving…" : "Save model"}
          </Button>
          <Button type="button" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}
