// Types for the undici files lib/net/undici-core.ts loads directly (the package types only its index).
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  import type { Dispatcher } from "undici";
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module "undici/lib/api/index.js" {
  const api: Record<string, unknown>;
  export default api;
}
declare module "undici/lib/core/errors.js" {
  import type { errors } from "undici";
  const undiciErrors: typeof errors;
  export default undiciErrors;
}
