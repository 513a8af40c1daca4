import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// The coding agents users point at the gateway, installed from npm into a cache folder
// of their own (ignored by git) and run for one non-interactive turn each, every one with
// a throwaway home so nothing of the machine's own configuration leaks in or out.

export const CACHE = path.join(import.meta.dirname, ".cache");

/** The releases the fixtures were recorded with; bump together with a fresh recording. */
export const AGENT_PACKAGES = {
  codex: { package: "@openai/codex", version: "0.169.0", bin: "codex" },
  claude: { package: "@anthropic-ai/claude-code", version: "2.1.197", bin: "claude" },
  gemini: { package: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  opencode: { package: "opencode-ai", version: "1.18.33", bin: "opencode" },
} as const;
export type AgentName = keyof typeof AGENT_PACKAGES;

const installed = (agent: AgentName) => {
  const manifest = path.join(CACHE, "node_modules", AGENT_PACKAGES[agent].package, "package.json");
  return fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).version === AGENT_PACKAGES[agent].version;
};

/** Installs the pinned releases unless the cache holds them already. */
export function ensureAgentClis(): void {
  const agents = Object.keys(AGENT_PACKAGES) as AgentName[];
  if (agents.every(installed)) return;
  fs.mkdirSync(CACHE, { recursive: true });
  if (!fs.existsSync(path.join(CACHE, "package.json"))) fs.writeFileSync(path.join(CACHE, "package.json"), '{"name":"agent-clis","private":true}\n');
  const specs = agents.map((agent) => `${AGENT_PACKAGES[agent].package}@${AGENT_PACKAGES[agent].version}`);
  process.stdout.write(`# installing ${specs.join(", ")} into ${path.relative(process.cwd(), CACHE)}\n`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["install", "--no-audit", "--no-fund", "--no-save", ...specs], { cwd: CACHE, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm install of the agent CLIs failed; run it in ${CACHE}: npm install ${specs.join(" ")}`);
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface TurnOptions {
  agent: AgentName;
  /** The gateway's (or a recorder's) origin, without a path. */
  origin: string;
  key: string;
  model: string;
  prompt: string;
  /** The agent's working directory. */
  workdir: string;
  timeoutMs?: number;
  /** More arguments, put after the first one (Codex's `exec`): the MCP recording's `-c mcp_servers...`. */
  extraArgs?: string[];
}

/** One non-interactive turn of an agent. */
export function runAgentTurn(options: TurnOptions): Promise<AgentRun> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `agent-home-${options.agent}-`));
  const invocation = INVOCATIONS[options.agent](options, home);
  const args = options.extraArgs ? [...invocation.args.slice(0, 1), ...options.extraArgs, ...invocation.args.slice(1)] : invocation.args;
  const env = invocation.env;
  const bin = path.join(CACHE, "node_modules", ".bin", AGENT_PACKAGES[options.agent].bin);
  // Only what a clean shell has, and the agent's own settings: no keys or homes of this machine.
  const base = {
    PATH: process.env.PATH ?? "",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
  };
  return new Promise((resolve) => {
    // stdin closed: Codex reads a prompt from an open stdin and would wait for its end.
    const child = spawn(bin, args, { cwd: options.workdir, env: { ...base, ...env } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      fs.rmSync(home, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

type Invocation = (options: TurnOptions, home: string) => { args: string[]; env: Record<string, string> };

const INVOCATIONS: Record<AgentName, Invocation> = {
  // Codex speaks the Responses API to a custom provider (`wire_api = "responses"`).
  codex: ({ origin, key, model, prompt }, home) => ({
    args: [
      "exec",
      "--skip-git-repo-check",
      "--sandbox",
      "read-only",
      "-c",
      "model_provider=gateway",
      "-c",
      `model_providers.gateway={name="gateway",base_url="${origin}/v1",env_key="GATEWAY_KEY",wire_api="responses"}`,
      "-m",
      model,
      prompt,
    ],
    env: { CODEX_HOME: home, GATEWAY_KEY: key },
  }),
  // Claude Code speaks Anthropic's Messages API; read-only tools need no permission in -p mode.
  claude: ({ origin, key, model, prompt }, home) => ({
    args: ["-p", prompt, "--model", model],
    env: {
      ANTHROPIC_BASE_URL: origin,
      ANTHROPIC_AUTH_TOKEN: key,
      CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      ANTHROPIC_SMALL_FAST_MODEL: model,
    },
  }),
  // Gemini CLI speaks generateContent (through @google/genai) and wants its auth chosen in settings.
  gemini: ({ origin, key, model, prompt }, home) => {
    fs.mkdirSync(path.join(home, ".gemini"), { recursive: true });
    fs.writeFileSync(
      path.join(home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false } }),
    );
    return { args: ["-p", prompt, "-m", model], env: { GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: origin, GEMINI_CLI_TRUST_WORKSPACE: "true" } };
  },
  // opencode speaks chat completions through an OpenAI-compatible provider declared in its config.
  opencode: ({ origin, key, model, prompt }, home) => {
    const config = {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      provider: { gateway: { npm: "@ai-sdk/openai-compatible", name: "Gateway", options: { baseURL: `${origin}/v1`, apiKey: key }, models: { [model]: { name: model } } } },
    };
    const file = path.join(home, "opencode.json");
    fs.writeFileSync(file, JSON.stringify(config));
    // Its cache (provider packages it installs on first use) is kept between runs.
    return {
      args: ["run", "-m", `gateway/${model}`, prompt],
      env: { OPENCODE_CONFIG: file, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", XDG_CACHE_HOME: path.join(CACHE, "opencode-cache") },
    };
  },
};
