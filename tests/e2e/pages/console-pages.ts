import { expect, type Page } from "@playwright/test";

// Page objects: what a user does on each console page, in the words of the UI.

export class ConsolePages {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  /** Fills and submits the sign-in form without waiting for the outcome. */
  async attemptSignIn(email: string, password: string) {
    await this.page.goto(`${this.baseUrl}/login`);
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in" }).click();
  }

  /** Signs in and waits for the dashboard. */
  async signIn(email: string, password: string) {
    await this.attemptSignIn(email, password);
    await expect(this.page).toHaveURL(/\/console$/);
  }

  async open(path: string) {
    await this.page.goto(`${this.baseUrl}${path}`);
  }

  /** Creates a token on /console/tokens and returns the key shown once. */
  async createToken(name: string, options: { models?: string[]; rpm?: number } = {}): Promise<string> {
    await this.open("/console/tokens");
    await this.page.getByRole("button", { name: "Create token" }).click();
    const form = this.page.getByRole("form", { name: "Create token" });
    await form.getByLabel("Name", { exact: true }).fill(name);
    if (options.rpm) await form.getByLabel("Requests per minute").fill(String(options.rpm));
    for (const model of options.models ?? []) await form.getByLabel(model, { exact: true }).check();
    await form.getByRole("button", { name: "Create", exact: true }).click();
    const key = this.page.getByTestId("new-token-key");
    await expect(key).toBeVisible();
    const text = (await key.textContent())?.trim() ?? "";
    await this.page.getByRole("button", { name: "Done" }).click();
    return text;
  }

  playground() {
    const page = this.page;
    return {
      open: () => this.open("/console/playground"),
      chooseModel: (model: string) => page.getByLabel("Model", { exact: true }).selectOption(model),
      chooseMode: (mode: "Chat" | "Embeddings" | "Images" | "Speech") => page.getByLabel("Mode", { exact: true }).selectOption({ label: mode }),
      run: async (input: string) => {
        await page.locator("#pg-operation-input").fill(input);
        await page.getByRole("button", { name: "Run" }).click();
      },
      /** Picks the first "Chat as" option whose text contains `text`. */
      chatAs: async (text: string) => {
        const select = page.getByLabel("Chat as");
        const value = await select.locator("option", { hasText: text }).first().getAttribute("value");
        await select.selectOption(value!);
      },
      send: async (text: string) => {
        await page.getByLabel("Message", { exact: true }).fill(text);
        await page.getByLabel("Message", { exact: true }).press("Enter");
      },
      lastReply: () => page.getByTestId("assistant-message").last(),
      stop: () => page.getByRole("button", { name: "Stop" }).click(),
    };
  }
}
