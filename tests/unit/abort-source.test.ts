import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { abortSignalOf, LightAbort } from "@/lib/canonical/abort-source";

describe("LightAbort", () => {
  test("aborts once: listeners run once, a removed one never, later aborts change nothing", () => {
    const abort = new LightAbort();
    const heard: string[] = [];
    const first = () => heard.push("first");
    const removed = () => heard.push("removed");
    abort.addEventListener("abort", first);
    abort.addEventListener("abort", removed);
    abort.removeEventListener("abort", removed);
    abort.abort("gone");
    abort.abort("again");
    assert.deepEqual(heard, ["first"]);
    assert.equal(abort.aborted, true);
    assert.equal(abort.reason, "gone");
  });

  test("its AbortSignal follows it, whether asked for before or after the abort", () => {
    const early = new LightAbort();
    const signal = abortSignalOf(early);
    assert.equal(signal.aborted, false);
    early.abort("left");
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, "left");

    const late = new LightAbort();
    late.abort();
    assert.equal(late.signal.aborted, true);
    assert.equal((late.signal.reason as DOMException).name, "AbortError");
  });

  test("a real AbortSignal is its own", () => {
    const controller = new AbortController();
    assert.equal(abortSignalOf(controller.signal), controller.signal);
  });
});
