import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { apiRoutes } from "@/lib/http/api-routes";
import { RouteTable } from "@/lib/http/route-table";
import { CHANNEL_TYPES } from "@/lib/routing/channel";
import { documentedRoutes, openApiDocument } from "@/lib/openapi/build-document";

// The document and the route table describe the same API: every route is documented,
// every documented path is served (the realtime WebSocket by the process entry's upgrade).

const sample = (path: string) => path.replace(/\{(\w+)\}/g, "x1");

describe("the OpenAPI document", () => {
  test("documents every route of the route table, and nothing it does not serve", () => {
    const documentedHandlers = new Set(
      documentedRoutes
        .filter((route) => route.path !== "/v1/realtime")
        .map((route) => {
          const match = apiRoutes.match(route.method, sample(route.path));
          assert.ok(match, `${route.method} ${route.path} is documented but not served`);
          return match.handler;
        }),
    );
    for (const route of apiRoutes.routes()) {
      assert.ok(documentedHandlers.has(route.handler), `${route.method} ${route.path} is served but not documented`);
      // By its own path too: one handler may serve several paths (Gemini's under /v1 and /v1beta).
      const alone = new RouteTable().add(route.method, route.path, route.handler);
      assert.ok(
        documentedRoutes.some((documented) => alone.match(documented.method, sample(documented.path))),
        `${route.method} ${route.path} is served but no documented path reaches it`,
      );
    }
  });

  test("is OpenAPI 3.1 with request schemas generated from the validating zod schemas", () => {
    const document = openApiDocument() as { openapi: string; paths: Record<string, Record<string, any>> };
    assert.equal(document.openapi, "3.1.0");
    const chat = document.paths["/v1/chat/completions"]!.post.requestBody.content["application/json"].schema;
    assert.ok(chat.properties.messages, "messages documented");
    assert.ok(chat.required.includes("model") && chat.required.includes("messages"));
    const channel = document.paths["/api/admin/channels"]!.post.requestBody.content["application/json"].schema;
    assert.deepEqual(channel.properties.type.enum, [...CHANNEL_TYPES], "the channel types, from the validating schema");
    assert.ok(document.paths["/v1/images/edits"]!.post.requestBody.content["multipart/form-data"]);
    // Gemini's methods are documented under both versions the SDKs call.
    for (const version of ["/v1beta", "/v1"]) {
      assert.ok(document.paths[`${version}/models/{model}:generateContent`]?.post.requestBody, `${version} generateContent`);
      assert.ok(document.paths[`${version}/models/{model}:streamGenerateContent`]?.post, `${version} streamGenerateContent`);
    }
    assert.ok(document.paths["/v1/models/{model}"]!.get.security.some((scheme: Record<string, unknown>) => "googleKey" in scheme));
  });
});
