// undici's connection pools without the rest of its index: `import "undici"` also loads its
// fetch, WebSocket, EventSource, cache and mock modules, about 8 MB of every process's memory
// that the gateway never uses (Node's own fetch is a separate copy). These are the files the
// index loads for the same classes, and the one line it runs to give dispatchers their
// request() and stream() methods, so a later `import "undici"` shares them unchanged.
import type { Agent as AgentType } from "undici";
import AgentClass from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import api from "undici/lib/api/index.js";
import errors from "undici/lib/core/errors.js";

Object.assign(Dispatcher.prototype, api);

export const Agent = AgentClass;
export type Agent = AgentType;
export { errors };
