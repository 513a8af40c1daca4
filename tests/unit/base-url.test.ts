import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeBaseUrl, versionSuggestion } from "@/lib/providers/base-url";

test("base URLs lose trailing slashes and pasted endpoint paths, never their version segment", () => {
  assert.deepEqual(normalizeBaseUrl(" https://api.example.com/v1/ ").url, "https://api.example.com/v1");
  assert.equal(normalizeBaseUrl("https://api.example.com/v1/chat/completions").url, "https://api.example.com/v1");
  assert.equal(normalizeBaseUrl("https://api.anthropic.com/v1/messages").url, "https://api.anthropic.com/v1");
  assert.equal(normalizeBaseUrl("https://g.example/v1beta/models/gemini-2.5-flash:generateContent").url, "https://g.example/v1beta");
  assert.equal(normalizeBaseUrl("https://openrouter.ai/api/v1").url, "https://openrouter.ai/api/v1");
  assert.deepEqual(normalizeBaseUrl("https://api.example.com/v1").changes, []);
  assert.match(normalizeBaseUrl("https://api.example.com/v1/chat/completions").changes[0]!, /chat\/completions/);
});

test("a version segment is suggested only where the path has none", () => {
  assert.equal(versionSuggestion("openai", "http://localhost:8000"), "http://localhost:8000/v1");
  assert.equal(versionSuggestion("openai", "http://localhost:8000/"), "http://localhost:8000/v1");
  assert.equal(versionSuggestion("gemini", "https://generativelanguage.googleapis.com"), "https://generativelanguage.googleapis.com/v1beta");
  assert.equal(versionSuggestion("anthropic", "https://proxy.example/anthropic"), "https://proxy.example/anthropic/v1");
  assert.equal(versionSuggestion("openai", "https://open.bigmodel.cn/api/paas/v4"), null);
  assert.equal(versionSuggestion("openai", "https://api.groq.com/openai/v1"), null);
  assert.equal(versionSuggestion("mock", "http://anything"), null);
});
