import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as genai2 from "@google/genai";
import OpenAI6 from "openai";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { newestSdks } from "../helpers/newest-sdks";
import { startGateway, type Gateway } from "../helpers/start-gateway";

const { OpenAI: OpenAI7, genai: genai3 } = await newestSdks();

// Users pin either major of each SDK: @google/genai 3 calls Gemini's /v1 paths by default
// and 2 calls /v1beta, so both lanes run the same cases at their SDK's default settings.
// Whichever version the client calls, the gateway calls a Gemini upstream on v1beta.

let gateway: Gateway;
let key: string;
let fake: Awaited<ReturnType<typeof startFakeGeminiUpstream>>;

before(async () => {
  fake = await startFakeGeminiUpstream();
  gateway = await startGateway();
  const channel = { name: "gemini", type: "gemini", baseUrl: fake.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] };
  assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "sdk majors" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await fake?.close();
});

async function loggedEndpoint(requestId: string | null | undefined): Promise<string | undefined> {
  const rows = (await gateway.admin("GET", "/api/admin/logs?limit=100")).body.data as { id: string; endpoint: string }[];
  return rows.find((row) => row.id === requestId)?.endpoint;
}

const WEATHER = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] },
};

const GEMINI_LANES = [
  { sdk: "@google/genai 3", module: genai3, version: "/v1" },
  { sdk: "@google/genai 2", module: genai2, version: "/v1beta" },
] as const;

for (const lane of GEMINI_LANES) {
  describe(`${lane.sdk} at its default settings (${lane.version})`, () => {
    const client = (apiKey = key) => new lane.module.GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url } });

    test("generateContent through a Gemini upstream, which is called on v1beta", async () => {
      const before = fake.received.length;
      const response = await client().models.generateContent({ model: "gemini-test", contents: "Hello there" });
      assert.ok(response.text && response.text.length > 0, "text came back");
      assert.equal(response.candidates?.[0]?.finishReason, "STOP");
      const upstream = fake.received.slice(before);
      assert.equal(upstream.length, 1);
      assert.match(upstream[0]!.path, /^\/v1beta\/models\/gemini-test:generateContent/);
      const requestId = response.sdkHttpResponse?.headers?.["x-request-id"];
      assert.equal(await loggedEndpoint(requestId), `${lane.version}/models/{model}:generateContent`, "the log records the path called");
    });

    test("streamGenerateContent", async () => {
      let text = "";
      let finish: string | undefined;
      for await (const chunk of await client().models.generateContentStream({ model: "mock-chat", contents: "Tell me a story" })) {
        text += chunk.text ?? "";
        finish = chunk.candidates?.[0]?.finishReason ?? finish;
      }
      assert.ok(text.split(" ").length > 3, `streamed words: ${text}`);
      assert.equal(finish, "STOP");
    });

    test("function calling", async () => {
      const response = await client().models.generateContent({
        model: "mock-chat",
        contents: "Weather in Paris?",
        config: {
          tools: [{ functionDeclarations: [WEATHER as never] }],
          toolConfig: { functionCallingConfig: { mode: "ANY" as never, allowedFunctionNames: ["get_weather"] } },
        },
      });
      assert.equal(response.functionCalls?.[0]?.name, "get_weather");
    });

    test("countTokens", async () => {
      const counted = await client().models.countTokens({ model: "mock-chat", contents: "How many tokens is this?" });
      assert.ok((counted.totalTokens ?? 0) > 0);
    });

    test("models.list and models.get answer in Gemini's shape", async () => {
      const names: string[] = [];
      for await (const model of await client().models.list()) names.push(model.name ?? "");
      assert.ok(names.includes("models/mock-chat") && names.includes("models/gemini-test"), names.join(", "));
      const one = await client().models.get({ model: "mock-chat" });
      assert.equal(one.name, "models/mock-chat");
      assert.ok(one.supportedActions?.includes("generateContent"));
    });

    test("a wrong key is Gemini's 401", async () => {
      const error = await client("sk-wrong-key-0000000000")
        .models.generateContent({ model: "mock-chat", contents: "hi" })
        .then(
          () => assert.fail("expected an error"),
          (thrown: unknown) => thrown,
        );
      assert.ok(error instanceof lane.module.ApiError, String(error));
      assert.equal(error.status, 401);
    });

    test("an aborted stream stops", async () => {
      const controller = new AbortController();
      const stream = await client().models.generateContentStream({
        model: "mock-chat",
        contents: "Tell me a long story",
        config: { abortSignal: controller.signal },
      });
      const reading = (async () => {
        for await (const _chunk of stream) controller.abort();
      })();
      await assert.rejects(reading);
    });
  });
}

const OPENAI_LANES = [
  { sdk: "openai 7", OpenAI: OpenAI7 },
  { sdk: "openai 6", OpenAI: OpenAI6 },
] as const;

for (const lane of OPENAI_LANES) {
  describe(lane.sdk, () => {
    const client = (apiKey = key) => new lane.OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0 });

    test("chat, plain and streamed", async () => {
      const completion = await client().chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "Hello" }] });
      assert.ok(completion.choices[0]!.message.content);
      const streamed = await client()
        .chat.completions.stream({ model: "mock-chat", messages: [{ role: "user", content: "Hello" }], stream_options: { include_usage: true } })
        .finalChatCompletion();
      assert.equal(streamed.choices[0]!.message.content, completion.choices[0]!.message.content);
      assert.ok((streamed.usage?.completion_tokens ?? 0) > 0);
    });

    test("models.list and models.retrieve answer in OpenAI's shape to a Bearer token", async () => {
      const ids: string[] = [];
      for await (const model of client().models.list()) ids.push(model.id);
      assert.deepEqual(ids, ["gemini-test", "mock-chat"]);
      const one = await client().models.retrieve("gemini-test");
      assert.equal(one.object, "model");
      assert.equal(one.owned_by, "google");
      await assert.rejects(client().models.retrieve("no-such-model"), (error: unknown) => error instanceof lane.OpenAI.NotFoundError);
    });

    test("a wrong key is an AuthenticationError", async () => {
      await assert.rejects(
        client("sk-wrong-key-0000000000").chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "x" }] }),
        (error: unknown) => error instanceof lane.OpenAI.AuthenticationError,
      );
    });
  });
}
