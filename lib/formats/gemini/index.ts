import type { ClientFormat } from "@/lib/gateway/client-format";
import { renderGeminiError, renderGeminiStreamError } from "./render-error";

export const geminiFormat: ClientFormat = {
  name: "gemini",
  // @google/genai sends x-goog-api-key; REST examples use ?key=.
  extractToken: (request) => request.headers.get("x-goog-api-key") ?? request.url.searchParams.get("key"),
  renderError: renderGeminiError,
  renderStreamError: (error) => renderGeminiStreamError(error, { sse: true }),
};
