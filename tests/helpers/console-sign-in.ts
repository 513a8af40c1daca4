// Signs in to the console the way the login form does (next-auth credentials), without a
// browser: returns the session cookie, or null when sign-in was refused.
export async function signIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}): Promise<string | null> {
  const csrfResponse = await fetch(`${baseUrl}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
  const csrfCookie = csrfResponse.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true", callbackUrl: `${baseUrl}/console` }),
  });
  await response.arrayBuffer();
  const session = response.headers.getSetCookie().find((cookie) => cookie.startsWith("next-auth.session-token="));
  return session ? session.split(";")[0]! : null;
}
