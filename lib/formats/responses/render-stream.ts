import { toGatewayError, type GatewayError } from "@/lib/canonical/gateway-error";
import type { FinishReason } from "@/lib/canonical/finish-reason";
import { renderPerBatch, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import type { Usage } from "@/lib/canonical/usage";
import { renderResponsesStreamError } from "./render-stream-error";
import { encodeSse } from "@/lib/sse/encode-sse";
import {
  messageItem,
  newId,
  reasoningItem,
  responseObject,
  statusFor,
  toolCallItem,
  urlCitation,
  webSearchItem,
  type OutputItem,
  type ResponseEnvelope,
  type UrlCitation,
} from "./render-response";

// Canonical events as the Responses API's named stream events, each with an increasing
// sequence_number: response.created, then every output item opened, filled and closed
// in order, then response.completed (or .incomplete; a failure ends with `error`).

type Open =
  | { kind: "reasoning"; id: string; index: number; text: string }
  /** `offset`: where this message's text starts in all the answer's text (citations count from there). */
  | { kind: "message"; id: string; index: number; text: string; offset: number; annotations: UrlCitation[] }
  | { kind: "tool"; index: number; call: { id: string; name: string; arguments: string }; item: OutputItem };

export class ResponsesStreamWriter {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private open: Open | undefined;
  /** Characters of text in the messages closed so far. */
  private textBefore = 0;
  /** The final response object, once finish() ran. */
  final: ReturnType<typeof responseObject> | undefined;

  constructor(private readonly envelope: ResponseEnvelope) {}

  private event(type: string, data: Record<string, unknown>): string {
    return encodeSse(JSON.stringify({ type, sequence_number: this.sequence++, ...data }), type);
  }

  start(): string[] {
    const response = responseObject(this.envelope, { status: "in_progress", output: [] });
    return [this.event("response.created", { response }), this.event("response.in_progress", { response })];
  }

  reasoning(text: string): string[] {
    const frames = this.open?.kind === "reasoning" ? [] : [...this.close(), ...this.openReasoning()];
    const open = this.open as Extract<Open, { kind: "reasoning" }>;
    open.text += text;
    frames.push(this.event("response.reasoning_summary_text.delta", { item_id: open.id, output_index: open.index, summary_index: 0, delta: text }));
    return frames;
  }

  text(text: string): string[] {
    const frames = this.open?.kind === "message" ? [] : [...this.close(), ...this.openMessage()];
    const open = this.open as Extract<Open, { kind: "message" }>;
    open.text += text;
    frames.push(this.event("response.output_text.delta", { item_id: open.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] }));
    return frames;
  }

  /** A search the upstream ran: an item of its own, opened and closed at once. */
  webSearch(search: Extract<StreamEvent, { type: "web-search" }>): string[] {
    const frames = this.close();
    const item = webSearchItem(search);
    const index = this.output.push(item) - 1;
    const ids = { output_index: index, item_id: item.id };
    frames.push(
      this.event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } }),
      this.event("response.web_search_call.in_progress", ids),
      this.event("response.web_search_call.searching", ids),
      // OpenAI has no event for a failed search: the item's status says it.
      this.event("response.web_search_call.completed", ids),
      this.event("response.output_item.done", { output_index: index, item }),
    );
    return frames;
  }

  /** A cited source, as an annotation of the message being written (none open: nothing to annotate). */
  citation(citation: Extract<StreamEvent, { type: "citation" }>): string[] {
    if (this.open?.kind !== "message") return [];
    const annotation = urlCitation(citation, this.open.offset, this.open.text.length);
    const annotationIndex = this.open.annotations.push(annotation) - 1;
    return [
      this.event("response.output_text.annotation.added", {
        item_id: this.open.id,
        output_index: this.open.index,
        content_index: 0,
        annotation_index: annotationIndex,
        annotation,
      }),
    ];
  }

  toolStart(id: string, name: string): string[] {
    const frames = this.close();
    const call = { id, name, arguments: "" };
    const item = toolCallItem(this.envelope, call, "in_progress");
    if (item.type === "function_call") item.arguments = "";
    else item.input = "";
    const index = this.output.push(item) - 1;
    this.open = { kind: "tool", index, call, item };
    frames.push(this.event("response.output_item.added", { output_index: index, item }));
    return frames;
  }

  toolDelta(delta: string): string[] {
    if (this.open?.kind !== "tool") return [];
    this.open.call.arguments += delta;
    // A custom tool's input is its one string argument: it is known once the arguments end.
    if (this.open.item.type !== "function_call") return [];
    return [this.event("response.function_call_arguments.delta", { item_id: this.open.item.id, output_index: this.open.index, delta })];
  }

  finish(reason: FinishReason, usage: Usage | undefined): string[] {
    const frames = this.close();
    if (this.output.length === 0) frames.push(...this.openMessage(), ...this.close());
    const { status, incomplete_details } = statusFor(reason);
    const response = responseObject(this.envelope, { status, incomplete_details, output: this.output, usage });
    this.final = response;
    frames.push(this.event(status === "completed" ? "response.completed" : "response.incomplete", { response }));
    return frames;
  }

  /** The open item closed, then the error event that ends the stream. */
  failed(error: GatewayError): string[] {
    const frames = this.close();
    frames.push(renderResponsesStreamError(error, this.sequence++));
    return frames;
  }

  private openReasoning(): string[] {
    const id = newId("rs");
    const index = this.output.push(reasoningItem(id, "")) - 1;
    this.open = { kind: "reasoning", id, index, text: "" };
    return [
      this.event("response.output_item.added", { output_index: index, item: reasoningItem(id, "") }),
      this.event("response.reasoning_summary_part.added", { item_id: id, output_index: index, summary_index: 0, part: { type: "summary_text", text: "" } }),
    ];
  }

  private openMessage(): string[] {
    const id = newId("msg");
    const item = { ...messageItem(id, "", "in_progress"), content: [] };
    const index = this.output.push(item) - 1;
    this.open = { kind: "message", id, index, text: "", offset: this.textBefore, annotations: [] };
    return [
      this.event("response.output_item.added", { output_index: index, item }),
      this.event("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
    ];
  }

  /** Closes the open item with its done events. */
  private close(): string[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    switch (open.kind) {
      case "reasoning": {
        const item = reasoningItem(open.id, open.text);
        this.output[open.index] = item;
        const part = { type: "summary_text", text: open.text };
        return [
          this.event("response.reasoning_summary_text.done", { item_id: open.id, output_index: open.index, summary_index: 0, text: open.text }),
          this.event("response.reasoning_summary_part.done", { item_id: open.id, output_index: open.index, summary_index: 0, part }),
          this.event("response.output_item.done", { output_index: open.index, item: { ...item, summary: [part] } }),
        ];
      }
      case "message": {
        const item = messageItem(open.id, open.text, "completed", open.annotations);
        this.output[open.index] = item;
        this.textBefore += open.text.length;
        return [
          this.event("response.output_text.done", { item_id: open.id, output_index: open.index, content_index: 0, text: open.text, logprobs: [] }),
          this.event("response.content_part.done", {
            item_id: open.id,
            output_index: open.index,
            content_index: 0,
            part: { type: "output_text", text: open.text, annotations: open.annotations },
          }),
          this.event("response.output_item.done", { output_index: open.index, item }),
        ];
      }
      case "tool": {
        const done: OutputItem = { ...toolCallItem(this.envelope, open.call), id: open.item.id };
        this.output[open.index] = done;
        const frames =
          done.type === "function_call"
            ? [this.event("response.function_call_arguments.done", { item_id: done.id, output_index: open.index, arguments: open.call.arguments })]
            : [
                this.event("response.custom_tool_call_input.delta", { item_id: done.id, output_index: open.index, delta: done.input }),
                this.event("response.custom_tool_call_input.done", { item_id: done.id, output_index: open.index, input: done.input }),
              ];
        frames.push(this.event("response.output_item.done", { output_index: open.index, item: done }));
        return frames;
      }
    }
  }
}

/** Renders a canonical event stream; a failure ends it with the error event relays also end with. */
export function renderResponsesStream(
  events: StreamEventBatches,
  envelope: ResponseEnvelope,
  onComplete?: (response: ReturnType<typeof responseObject>) => Promise<void> | void,
): AsyncIterable<string> {
  const writer = new ResponsesStreamWriter(envelope);
  let reason: FinishReason = "stop";
  let usage: Usage | undefined;
  function* onEvent(event: StreamEvent): Generator<string> {
    let frames: string[] = [];
    switch (event.type) {
      case "reasoning-delta":
        if (event.text) frames = writer.reasoning(event.text);
        break;
      case "text-delta":
        frames = writer.text(event.text);
        break;
      case "tool-call-start":
        frames = writer.toolStart(event.id, event.name);
        break;
      case "tool-call-delta":
        frames = writer.toolDelta(event.argumentsDelta);
        break;
      case "web-search":
        frames = writer.webSearch(event);
        break;
      case "citation":
        frames = writer.citation(event);
        break;
      case "finish":
        reason = event.reason;
        break;
      case "usage":
        usage = event.usage;
        break;
      case "error":
        throw event.error;
    }
    yield* frames;
  }

  return renderPerBatch(events, onEvent, {
    opening: writer.start().join(""),
    failed: (error) => writer.failed(toGatewayError(error)).join(""),
    ending: async () => {
      const frames = writer.finish(reason, usage);
      if (writer.final) await onComplete?.(writer.final);
      return frames.join("");
    },
  });
}
