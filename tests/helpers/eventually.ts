/**
 * Retries a check for up to 3 s: other processes hear of a change through the shared
 * state within moments, and log rows and metrics are recorded as a response ends.
 */
export async function eventually(check: () => Promise<void>): Promise<void> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await check();
    } catch (error) {
      if (tries >= 30) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
