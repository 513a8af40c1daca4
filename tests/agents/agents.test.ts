import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";
import { ensureAgentClis, runAgentTurn, type AgentName } from "./agent-clis";

// The agents themselves (`npm run test:agents`, outside `npm test`: it installs four CLIs
// and runs each a few dozen seconds): Codex, Claude Code, Gemini CLI and opencode each run
// one short non-interactive turn through the gateway to every kind of upstream (native
// OpenAI Responses, a chat-only OpenAI-compatible server, Anthropic, Gemini), then a turn
// in which the model calls one of the agent's own tools and answers from its result.

const UPSTREAMS = [
  { kind: "native Responses", model: "gpt-test" },
  { kind: "chat-only", model: "chat-only-test" },
  { kind: "Anthropic", model: "claude-test" },
  { kind: "Gemini", model: "gemini-test" },
];

const MARKER = "tool-ran-7f3a";

/** The prompt that makes the fakes call a read-only tool of each agent on hello.txt. */
const TOOL_PROMPTS: Record<AgentName, (workdir: string) => string> = {
  codex: () => `Please call the tool exec_command with {"cmd":"cat hello.txt"}`,
  claude: (workdir) => `Please call the tool Read with {"file_path":"${path.join(workdir, "hello.txt")}"}`,
  gemini: () => `Please call the tool read_file with {"file_path":"hello.txt"}`,
  opencode: (workdir) => `Please call the tool read with {"filePath":"${path.join(workdir, "hello.txt")}"}`,
};

let gateway: Gateway;
let fakes: VendorFakes;
let key: string;
let workdir: string;

before(async () => {
  ensureAgentClis();
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "chat-only-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "agents" })).body.key;
  workdir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "agent-work-")));
  fs.writeFileSync(path.join(workdir, "hello.txt"), `${MARKER}\n`);
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
  if (workdir) fs.rmSync(workdir, { recursive: true, force: true });
});

const turn = (agent: AgentName, model: string, prompt: string) => runAgentTurn({ agent, origin: gateway.url, key, model, prompt, workdir });
const shown = (run: { code: number | null; stdout: string; stderr: string }) => `exit ${run.code}\n--- stdout\n${run.stdout.slice(-1500)}\n--- stderr\n${run.stderr.slice(-1500)}`;

for (const agent of ["codex", "claude", "gemini", "opencode"] as AgentName[]) {
  describe(agent, () => {
    for (const { kind, model } of UPSTREAMS) {
      test(`${kind}: says hello`, async () => {
        const run = await turn(agent, model, "Say hello");
        assert.equal(run.code, 0, shown(run));
        // The fakes echo the prompt (a native Responses fake says "Native:").
        assert.match(run.stdout, /(Echo|Native): /, shown(run));
      });

      test(`${kind}: calls one of its tools and answers from the result`, async () => {
        const run = await turn(agent, model, TOOL_PROMPTS[agent](workdir));
        assert.equal(run.code, 0, shown(run));
        assert.match(run.stdout, /Tool said: /, shown(run));
        // The tool really ran: its output (hello.txt's text) went back to the model.
        assert.match(run.stdout, new RegExp(MARKER), shown(run));
      });
    }

    test("no upstream found a request the gateway made invalid for its vendor", () => {
      assert.deepEqual(fakes.openai.rejected, []);
      assert.deepEqual(fakes.anthropic.rejected, []);
      assert.deepEqual(fakes.gemini.rejected, []);
    });
  });
}
