/**
 * Retries a check for up to `withinMs` (3 s unless told): other processes hear of a change
 * through the shared state within moments, and log rows and metrics are recorded as a
 * response ends. Channel health reaches the store every 5 s from each process.
 */
export async function eventually(check: () => Promise<void>, withinMs = 3000): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started >= withinMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
