import { bearerToken } from "@/lib/canonical/bearer-token";
import type { ClientFormat } from "@/lib/gateway/client-format";
import { renderOpenAIError, renderOpenAIStreamError } from "./render-error";

export const openAIFormat: ClientFormat = {
  name: "openai",
  extractToken: (request) => bearerToken(request.headers.get("authorization")),
  renderError: renderOpenAIError,
  renderStreamError: renderOpenAIStreamError,
};
