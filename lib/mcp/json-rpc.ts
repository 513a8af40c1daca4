import { z } from "zod";
import type { ApiResponse } from "@/lib/canonical/api-types";
import type { GatewayError } from "@/lib/canonical/gateway-error";

// JSON-RPC 2.0 as MCP's Streamable HTTP carries it: one message per POST, answered with JSON
// or, when the call streams progress, with an SSE stream ending in the answer.

export const jsonRpcMessageSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
export type JsonRpcMessage = z.infer<typeof jsonRpcMessageSchema>;
export type JsonRpcId = string | number | null;

export const JSON_RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;
/** Server-defined codes (-32000 to -32099) for the gateway's own refusals. */
export const GATEWAY_CODES: Record<string, number> = {
  authentication: -32001,
  permission: -32003,
  not_found: -32004,
  rate_limit: -32029,
  quota_exceeded: -32029,
  loop_detected: -32008,
};

export function rpcResult(id: JsonRpcId, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

export function rpcError(id: JsonRpcId, code: number, message: string, data?: unknown) {
  return { jsonrpc: "2.0" as const, id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A gateway error as a JSON-RPC error: its message, a code by kind, the gateway's code as data. */
export function rpcGatewayError(id: JsonRpcId, error: GatewayError) {
  return rpcError(id, GATEWAY_CODES[error.kind] ?? JSON_RPC.internalError, error.message, { type: error.kind, code: error.code ?? null });
}

export function jsonRpcResponse(status: number, message: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(message) };
}
