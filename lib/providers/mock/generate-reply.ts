import { messageText, type ChatRequest } from "@/lib/canonical/request";

// The mock model's answer is a pure function of the request, so demos and tests are
// repeatable: it introduces itself and quotes the last user message.

export function mockReplyText(request: ChatRequest): string {
  const lastUser = [...request.messages].reverse().find((message) => message.role === "user");
  const said = lastUser ? messageText(lastUser).replace(/\s+/g, " ").trim() : "";
  const quoted = said.length > 200 ? `${said.slice(0, 200)}...` : said;
  return quoted
    ? `Hello! I am the gateway's built-in mock model. You said: "${quoted}". I reply the same way every time, so you can test your setup without an upstream account.`
    : "Hello! I am the gateway's built-in mock model. Send me a message and I will echo it back.";
}

/** Splits text into word-sized pieces that concatenate back to the text. */
export function splitWords(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}
