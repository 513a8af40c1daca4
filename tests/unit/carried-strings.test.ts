import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CarriedStrings, type CarryRule } from "@/lib/canonical/carried-strings";
import { isForOneUse } from "@/lib/canonical/one-use-bytes";

// A translated body carries the client's long strings as its own escaped bytes: whatever
// the text (escapes, control characters, non-ASCII, emoji, quotes next to backslashes),
// the body that goes up must parse to exactly the value the client's JSON holds.

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// U+0001 outside carried text sends a body the usual way (tested on its own below).
const PIECES = ['"', "\\", "\\\\", '\\"', "\n", "\t", "\u0002", "ü", "✓", "😀", "\u2028", "a", "{", "}", "[", "]", ":", ",", " ", "/"];

function randomText(random: () => number): string {
  const length = random() < 0.5 ? Math.floor(random() * 40) : 200 + Math.floor(random() * 1500);
  let text = "";
  while (text.length < length) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

function randomValue(depth: number, random: () => number): unknown {
  const kind = depth > 4 ? 0 : Math.floor(random() * 4);
  if (kind === 0) return random() < 0.8 ? randomText(random) : Math.floor(random() * 100);
  if (kind === 1) return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(depth + 1, random));
  return Object.fromEntries(
    Array.from({ length: Math.floor(random() * 5) }, (_, index) => [`k${index}${random() < 0.2 ? randomText(random) : ""}`, randomValue(depth + 1, random)]),
  );
}

/** JSON text as a client might write it: some characters as \u escapes, some slashes escaped. */
function clientJson(value: unknown, random: () => number): string {
  return JSON.stringify(value).replace(/[^"\\]/g, (character) => {
    if (random() < 0.9) return character;
    if (character === "/") return "\\/";
    const code = character.charCodeAt(0);
    // Escaping a structural character outside a string would break the JSON: only letters and non-ASCII.
    return /[a-zü✓]/.test(character) ? `\\u${code.toString(16).padStart(4, "0")}` : character;
  });
}

/** Text in any member of these names, at any depth. */
const ANY: CarryRule = { keys: new Set(["text", "content", "k0", "k1", "k2", "k3", "k4"]), depth: Infinity, whole: true };

/** Parses `text` with its long strings carried, writes it back with JSON.stringify, restores. */
function throughCarried(text: string, rule = ANY) {
  const bytes = Buffer.from(text);
  const strings = new CarriedStrings(bytes);
  const parsed = JSON.parse(strings.text(0, bytes.length, rule));
  return { strings, parsed, restored: strings.restore(Buffer.from(JSON.stringify(parsed))) };
}

describe("carried strings", () => {
  test("a value written back through placeholders parses to the client's value, whatever its strings hold", () => {
    const random = seeded(7);
    let carried = 0;
    for (let round = 0; round < 300; round += 1) {
      const value = { messages: Array.from({ length: 3 }, () => randomValue(1, random)), text: randomText(random) };
      const text = clientJson(value, random);
      const { restored } = throughCarried(text);
      assert.ok(restored, "restorable");
      assert.deepEqual(JSON.parse(restored.toString("utf8")), JSON.parse(text));
      if (restored.toString("utf8").includes("\\u00")) carried += 1;
    }
    // The client's own escapes went up as written: the strings were carried, not re-encoded.
    assert.ok(carried > 50, `${carried} bodies kept the client's escapes`);
  });

  test("a large translated body is made for one call: the transport lets go of it once written", () => {
    const text = JSON.stringify({ messages: [{ content: "ü".repeat(40_000) }, { content: "b".repeat(40_000) }] });
    const { restored } = throughCarried(text);
    assert.equal(restored!.toString(), text);
    assert.equal(isForOneUse(restored), true);
  });

  test("a body is encoded as one string or member by member, by how much is left beside the carried text, to the same bytes", () => {
    const long = (index: number) => `${index}: ${'line of a file "quoted" ü\n'.repeat(40)}`;
    for (const shortItems of [10, 4000]) {
      // Mostly carried text, or (4,000 short items, about 200 KB) mostly not: the second is written member by member.
      const value = {
        model: "m",
        messages: Array.from({ length: 40 }, (_, index) => ({ role: "user", content: long(index) })),
        notes: Array.from({ length: shortItems }, (_, index) => ({ k: `short ${index} "q"` })),
      };
      const text = JSON.stringify(value);
      const bytes = Buffer.from(text);
      const strings = new CarriedStrings(bytes);
      const parsed = JSON.parse(strings.text(0, bytes.length, ANY));
      const encoded = strings.encode(parsed);
      assert.equal(encoded.toString("utf8"), JSON.stringify(parsed), `${shortItems} short items`);
      assert.equal(strings.restore(encoded)?.toString("utf8"), text, `${shortItems} short items`);
    }
  });

  test("strings joined, moved and nested in other objects are restored; short strings and keys are parsed as usual", () => {
    const long = `file "a\\b"\n${"ünï ✓ 😀 ".repeat(60)}`;
    const key = "k".repeat(300);
    const text = JSON.stringify({ blocks: [{ text: long }, { text: "short" }], [key]: long });
    const bytes = Buffer.from(text);
    const strings = new CarriedStrings(bytes);
    const parsed = JSON.parse(strings.text(0, bytes.length, ANY));
    assert.notEqual(parsed.blocks[0].text, long, "a placeholder");
    assert.equal(parsed.blocks[1].text, "short");
    assert.ok(key in parsed, "a long key is parsed as usual");
    const moved = { content: `${parsed.blocks[0].text}\n\n${parsed[key]}`, nested: { again: [parsed.blocks[0].text] } };
    const out = strings.restore(Buffer.from(JSON.stringify(moved)));
    assert.deepEqual(JSON.parse(out!.toString("utf8")), { content: `${long}\n\n${long}`, nested: { again: [long] } });
  });

  test("strings deeper than the depth given, of members not named, or items of arrays are parsed as usual", () => {
    const long = "x".repeat(400);
    const text = JSON.stringify({
      role: "assistant",
      content: [
        { type: "tool_use", input: { content: long } },
        { type: "text", text: long },
      ],
    });
    const { parsed } = throughCarried(text, { ...ANY, depth: 3 });
    assert.equal(parsed.content[0].input.content, long);
    assert.notEqual(parsed.content[1].text, long);
    const named = throughCarried(JSON.stringify({ id: long, name: long, text: long, list: [long] })).parsed;
    assert.deepEqual([named.id, named.name, named.list[0]], [long, long, long], "only the members named are carried");
    assert.notEqual(named.text, long);
  });

  test("a placeholder written twice over (inside a JSON string of its own) or cut short is refused, never restored wrong", () => {
    const text = JSON.stringify({ input: { content: "y".repeat(400) } });
    const bytes = Buffer.from(text);
    const strings = new CarriedStrings(bytes);
    const parsed = JSON.parse(strings.text(0, bytes.length, ANY));
    assert.equal(strings.restore(Buffer.from(JSON.stringify({ arguments: JSON.stringify(parsed.input) }))), undefined);
    assert.equal(strings.restore(Buffer.from(JSON.stringify({ cut: parsed.input.content.slice(0, -1) }))), undefined);
    assert.equal(strings.restore(Buffer.from(JSON.stringify({ cut: parsed.input.content.slice(0, 5) }))), undefined, "cut inside its nonce");
    assert.equal(strings.restore(Buffer.from(JSON.stringify({ cut: parsed.input.content.slice(3) }))), undefined, "its start cut");
    assert.equal(strings.restore(Buffer.from(JSON.stringify({ cut: `${parsed.input.content.slice(0, -2)}9${parsed.input.content.slice(-1)}` }))), undefined);
  });

  test("a control character U+0001 of the client's own, outside carried text, sends the body the usual way", () => {
    const text = JSON.stringify({ content: "v".repeat(300), name: "a\u0001b" });
    const bytes = Buffer.from(text);
    const strings = new CarriedStrings(bytes);
    const parsed = JSON.parse(strings.text(0, bytes.length, ANY));
    assert.equal(strings.restore(Buffer.from(JSON.stringify(parsed))), undefined);
    // Inside carried text it is the client's bytes, never encoded.
    const inside = { content: `a\u0001b${"v".repeat(300)}`, name: "ab" };
    const carried = throughCarried(JSON.stringify(inside));
    assert.deepEqual(JSON.parse(carried.restored!.toString("utf8")), inside);
  });

  test("a client's own text that looks like a placeholder is text: the nonce is the gateway's", () => {
    const forged = `\u0001AAAAAAAAAAAA0\u0001 ${"z".repeat(300)}`;
    const text = JSON.stringify({ text: forged, content: "w".repeat(300) });
    const { parsed, restored } = throughCarried(text);
    assert.notEqual(parsed.content, "w".repeat(300), "carried");
    assert.deepEqual(JSON.parse(restored!.toString("utf8")), { text: forged, content: "w".repeat(300) });
  });
});
