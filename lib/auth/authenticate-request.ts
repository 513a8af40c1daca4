import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ApiRequest } from "@/lib/canonical/api-types";
import { isSameOrigin } from "@/lib/auth/same-origin";
import type { Runtime } from "@/lib/runtime";
import { authenticateToken, checkTokenActive } from "./authenticate-token";
import { credentialSlip } from "./credential-slip";
import { readConsoleSession, type ConsoleSession } from "./console-session";
import type { TokenRecord } from "./token-record";

/** Sent by the console's Playground, which authenticates with the session cookie. */
export const CONSOLE_HEADER = "x-gateway-console";
/** Chat as one of the signed-in user's tokens, with its limits. */
export const TOKEN_ID_HEADER = "x-gateway-token-id";

export interface Caller {
  token: TokenRecord;
  /** Set when a console session made (or accompanies) the request. */
  session: ConsoleSession | null;
}

/**
 * A request authenticates with a platform key, or (from the console, marked by a
 * custom header that cross-site pages cannot send without CORS) with the session
 * cookie: as one of the user's tokens, or as the user with the limits an admin set on them.
 */
export async function authenticateRequest(request: ApiRequest, key: string | null, runtime: Runtime): Promise<Caller> {
  const fromConsole = request.headers.get(CONSOLE_HEADER) === "1";
  if (fromConsole && !isSameOrigin(request.headers)) {
    throw new GatewayError("permission", "Cross-site requests cannot use the console session.", { code: "cross_site_request" });
  }
  const slip = () => credentialSlip(request.headers, key, runtime.secrets.adminApiKey);
  if (key) {
    const token = await authenticateToken(key, runtime.tokens, Date.now(), slip);
    const session = fromConsole ? await readConsoleSession(request.headers, runtime.secrets.authSecret, runtime.tokens) : null;
    return { token, session };
  }
  if (!fromConsole) return { token: await authenticateToken(null, runtime.tokens, Date.now(), slip), session: null };

  const session = await readConsoleSession(request.headers, runtime.secrets.authSecret, runtime.tokens);
  if (!session) throw new GatewayError("authentication", "Your console session has expired; sign in again.", { code: "invalid_session" });
  const tokenId = request.headers.get(TOKEN_ID_HEADER);
  if (!tokenId) {
    const token = await runtime.tokens.forSession(session.userId);
    if (!token) throw new GatewayError("authentication", "Your account no longer exists.", { code: "invalid_session" });
    return { token, session };
  }
  const token = await runtime.tokens.getById(tokenId);
  if (!token || (token.userId !== session.userId && session.role !== "admin")) {
    throw new GatewayError("permission", "That token does not exist or is not yours.", { code: "token_not_owned" });
  }
  checkTokenActive(token);
  return { token, session };
}
