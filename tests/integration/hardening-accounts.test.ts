import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { signIn } from "../helpers/console-sign-in";
import { callFormAction, serverActionId } from "../helpers/server-action";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// First-admin setup through the real server, the way the /setup form posts it (a Next
// server action): guessing the setup code is paused with a message, never a server error.

let gateway: Gateway;
let createFirstAdmin: string;
const OWNER = { email: "owner@example.com", password: "owner-password-123" };

before(async () => {
  gateway = await startGateway();
  createFirstAdmin = serverActionId("app/setup/actions.ts", "createFirstAdmin");
});
after(async () => gateway?.stop());

const setup = (code: string) => callFormAction(gateway.url, "/setup", createFirstAdmin, { code, email: OWNER.email, password: OWNER.password, confirm: OWNER.password });

describe("setup code guessing", () => {
  test("past ten wrong codes the form says to wait, not a 500, and even the right code waits", async () => {
    for (let guess = 0; guess < 10; guess += 1) {
      const answer = await setup(`WRONG-CODE-${guess}`);
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      assert.match(answer.text, /That setup code is not right/);
    }
    for (const code of ["WRONG-CODE-10", "WRONG-CODE-11"]) {
      const answer = await setup(code);
      assert.equal(answer.status, 200, `a throttled guess is a form message: ${answer.text.slice(0, 300)}`);
      assert.match(answer.text, /Too many wrong setup codes\. Try again in \d+ minutes\./);
    }
    const right = await setup(gateway.setupCode());
    assert.equal(right.status, 200, right.text.slice(0, 300));
    assert.match(right.text, /Too many wrong setup codes/);
    assert.equal(await signIn(gateway.url, OWNER.email, OWNER.password), null, "no account was created");
    assert.equal((await gateway.admin("GET", "/api/admin/users")).body.data.length, 0);
  });
});
