// Ready-to-run examples for a key, with this deployment's base URL. Each SDK is given the
// base URL the way it wants it: OpenAI's with /v1, Anthropic's and Gemini's without (they
// add their own version segment).

export type SnippetName = "curl" | "openai-python" | "openai-typescript" | "anthropic" | "gemini" | "claude-code" | "codex";

export const SNIPPET_LABELS: Record<SnippetName, string> = {
  curl: "curl",
  "openai-python": "OpenAI Python",
  "openai-typescript": "OpenAI TypeScript",
  anthropic: "Anthropic SDK",
  gemini: "Gemini SDK",
  "claude-code": "Claude Code",
  codex: "Codex",
};

export function tokenSnippets(baseUrl: string, key: string, model: string): Record<SnippetName, string> {
  return {
    curl: `curl ${baseUrl}/v1/chat/completions \\
  -H "Authorization: Bearer ${key}" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"${model}","messages":[{"role":"user","content":"Hello!"}]}'`,
    "openai-python": `from openai import OpenAI

client = OpenAI(base_url="${baseUrl}/v1", api_key="${key}")
reply = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(reply.choices[0].message.content)`,
    "openai-typescript": `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${baseUrl}/v1", apiKey: "${key}" });
const reply = await client.chat.completions.create({
  model: "${model}",
  messages: [{ role: "user", content: "Hello!" }],
});
console.log(reply.choices[0].message.content);`,
    anthropic: `import Anthropic from "@anthropic-ai/sdk";

// Any model of this gateway answers in Anthropic's format, whatever its upstream.
const client = new Anthropic({ baseURL: "${baseUrl}", apiKey: "${key}" });
const message = await client.messages.create({
  model: "${model}",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Hello!" }],
});
console.log(message.content);

// Python: anthropic.Anthropic(base_url="${baseUrl}", api_key="${key}")`,
    gemini: `import { GoogleGenAI } from "@google/genai";

const ai = new GoogleGenAI({ apiKey: "${key}", httpOptions: { baseUrl: "${baseUrl}" } });
const reply = await ai.models.generateContent({ model: "${model}", contents: "Hello!" });
console.log(reply.text);

// @google/genai 3 calls /v1/models/…, version 2 calls /v1beta/models/…: both are served.

// With curl (/v1beta works the same):
// curl "${baseUrl}/v1/models/${model}:generateContent" -H "x-goog-api-key: ${key}" \\
//   -H "Content-Type: application/json" -d '{"contents":[{"parts":[{"text":"Hello!"}]}]}'`,
    "claude-code": `# Claude Code talks to the gateway's /v1/messages; any model here works.
export ANTHROPIC_BASE_URL="${baseUrl}"
export ANTHROPIC_AUTH_TOKEN="${key}"
export ANTHROPIC_MODEL="${model}"
export ANTHROPIC_SMALL_FAST_MODEL="${model}"
claude`,
    codex: `# ~/.codex/config.toml
model = "${model}"
model_provider = "gateway"

[model_providers.gateway]
name = "Model gateway"
base_url = "${baseUrl}/v1"
env_key = "GATEWAY_API_KEY"
wire_api = "responses"

# then, in the shell:
# export GATEWAY_API_KEY="${key}"
# codex`,
  };
}
