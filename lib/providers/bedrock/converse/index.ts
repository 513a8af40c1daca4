import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import { postJson } from "@/lib/providers/post-json";
import type { AttemptContext } from "@/lib/providers/provider";
import { CONVERSE_PATH } from "../bedrock-transport";
import { eventStreamMessages } from "../event-stream";
import { parseOtherError } from "../parse-error";
import { toConverseBody } from "./convert-request";
import { converseResponseEvents, parseConverseStream } from "./parse-stream";

/** Bedrock's Converse API as the canonical chat: every model on Bedrock that is not Claude. */
export async function converseChat(request: ChatRequest, context: AttemptContext): Promise<StreamEventBatches> {
  const body = await toConverseBody(request, context);
  const endpoint = { path: CONVERSE_PATH, model: context.upstreamModel, stream: request.stream };
  const response = await postJson(context, endpoint, {}, body, parseOtherError);
  if (request.stream) return parseConverseStream(eventStreamMessages(response.body), context.upstreamModel);
  const json = await response.body.json();
  return (async function* () {
    yield [...converseResponseEvents(json, context.upstreamModel)];
  })();
}
