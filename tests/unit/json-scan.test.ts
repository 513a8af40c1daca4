import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JsonBody } from "@/lib/canonical/json-body";
import { encodeJson } from "@/lib/canonical/encode-json";
import { closingQuote, everyItemHasKey, scanJson, valueEnd } from "@/lib/canonical/json-scan";

// The byte scan a request is read with: where the root object's members and its array
// members' items lie must be exactly what JSON.parse sees, or the scan must say it cannot tell.

const LIMITS = { depth: 128, objects: 1_000_000, values: 10_000_000 };

function layoutOf(text: string) {
  const bytes = Buffer.from(text);
  const scan = scanJson(bytes, 0, LIMITS);
  return { bytes, scan, object: scan.object };
}

/** A random JSON value: strings with quotes, backslashes, brackets and non-ASCII text included. */
function randomValue(depth: number, random: () => number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 4 : 7));
  const texts = ["plain", 'with "quotes"', "back\\slash\\", "brackets ]}[{ and , commas", "ünïcödé — ✓ 日本", "", '\\"', "line\nbreak\ttab"];
  switch (pick) {
    case 0:
      return texts[Math.floor(random() * texts.length)];
    case 1:
      return Math.round(random() * 1e6) / 100 - 5000;
    case 2:
      return [true, false, null][Math.floor(random() * 3)];
    case 3:
      return -1.5e-7;
    case 4:
    case 5:
      return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(depth + 1, random));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, (_, index) => [`k${index}${texts[index % texts.length]}`, randomValue(depth + 1, random)]));
  }
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** JSON.stringify with white space put in between tokens at random (outside strings). */
function spaced(value: unknown, random: () => number): string {
  const space = () => [" ", "\n", "\t ", "", "\r\n  "][Math.floor(random() * 5)]!;
  if (Array.isArray(value)) return `[${space()}${value.map((item) => `${spaced(item, random)}${space()}`).join(`,${space()}`)}]`;
  if (value !== null && typeof value === "object") {
    return `{${space()}${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}${space()}:${space()}${spaced(item, random)}${space()}`)
      .join(`,${space()}`)}}`;
  }
  return JSON.stringify(value);
}

describe("scanJson", () => {
  test("finds each member's value and each array item exactly where JSON.parse reads them, on 500 random bodies", () => {
    const random = seeded(7);
    for (let round = 0; round < 500; round += 1) {
      const value = Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 6) }, (_, index) => [`m${index}`, randomValue(0, random)]));
      const text = `${round % 3 === 0 ? " \n" : ""}${spaced(value, random)}${round % 4 === 0 ? "\n" : ""}`;
      const { bytes, object } = layoutOf(text);
      assert.ok(object, text);
      assert.deepEqual(
        object.members.map((member) => member.key),
        Object.keys(value),
      );
      for (const member of object.members) {
        assert.deepEqual(JSON.parse(bytes.toString("utf8", member.start, member.end)), value[member.key], text);
        const expected = value[member.key];
        if (Array.isArray(expected)) {
          assert.ok(member.items, text);
          const items = [];
          for (let index = 0; index < member.items.length; index += 2) items.push(JSON.parse(bytes.toString("utf8", member.items[index], member.items[index + 1])));
          assert.deepEqual(items, expected, text);
        } else assert.equal(member.items, undefined);
      }
      assert.equal(bytes[object.close], 0x7d);
    }
  });

  test("says it cannot tell for what is not one plain object: JSON.parse decides those", () => {
    for (const text of [
      "[1,2]",
      '"text"',
      '{"a":1,}',
      '{"a":1 2}',
      '{"a":}',
      '{"a" 1}',
      '{"a":1}x',
      '{"a":1}{}',
      '{"a":[1,,2]}',
      '{"a":[,1]}',
      '{"a":[1,]}',
      '{"a":1,"a":2}',
      '{"a":1,"\\u0061":2}',
      '{"a":[1]',
      '{"a":"open',
    ]) {
      assert.equal(layoutOf(text).object, undefined, text);
    }
    assert.deepEqual(layoutOf("{}").object, { members: [], close: 1, longStrings: [] });
  });

  test("lists each string of 256 bytes or more with its quotes and how many containers enclose it, keys and values alike", () => {
    const long = "x".repeat(256);
    const text = `{"short":"${"y".repeat(255)}","a":"${long}","b":[{"${long}":"\\"${long}"}],"c":["${long}"]}`;
    const { longStrings } = scanJson(Buffer.from(text), 0, LIMITS);
    // Each string's opening quote, its closing quote (after its bytes), and its depth.
    const value = text.indexOf(`"${long}`);
    const key = text.indexOf(`"${long}`, value + 1);
    const escaped = text.indexOf('"\\', key + 1);
    const item = text.indexOf(`["${long}`) + 1;
    assert.deepEqual(longStrings, [value, value + 257, 1, key, key + 257, 3, escaped, escaped + 259, 3, item, item + 257, 2]);
    assert.deepEqual(scanJson(Buffer.from(`["${long}"]`), 0, LIMITS).longStrings, [1, 258, 1]);
  });

  test("counts nesting, containers and values against the limits as before", () => {
    assert.equal(scanJson(Buffer.from(`{"a":${"[".repeat(10)}${"]".repeat(10)}}`), 0, { ...LIMITS, depth: 10 }).shape, "too-deep");
    assert.equal(scanJson(Buffer.from(`{"a":${"[".repeat(9)}${"]".repeat(9)}}`), 0, { ...LIMITS, depth: 10 }).shape, "ok");
    assert.equal(scanJson(Buffer.from(`{"a":[${"{},".repeat(10)}{}]}`), 0, { ...LIMITS, objects: 11 }).shape, "too-many-objects");
    assert.equal(scanJson(Buffer.from(`{"a":[${"1,".repeat(20)}1]}`), 0, { ...LIMITS, values: 20 }).shape, "too-many-values");
    // Brackets and commas inside strings count for nothing.
    assert.equal(scanJson(Buffer.from(`{"a":"${"[,".repeat(50)}"}`), 0, { ...LIMITS, depth: 2, values: 3 }).shape, "ok");
  });
});

describe("JsonBody", () => {
  test("parses a body member by member, and a large array item by item, to what JSON.parse gives", () => {
    const random = seeded(11);
    const messages = Array.from({ length: 400 }, (_, index) => ({
      role: index % 2 ? "assistant" : "user",
      content: `${"ünïcödé text ✓ ".repeat(20)}${index}`,
      extra: randomValue(1, random),
    }));
    const text = JSON.stringify({ model: "m", messages, __proto__x: 1, stream: true });
    const scan = scanJson(Buffer.from(text), 0, LIMITS);
    const body = new JsonBody(Buffer.from(text), 0, scan.object);
    assert.ok(text.length > 64 * 1024);
    assert.deepEqual(body.value(), JSON.parse(text));
  });

  test("keeps `__proto__` an own member, as JSON.parse does", () => {
    const text = '{"__proto__":{"polluted":true},"a":1}';
    const body = new JsonBody(Buffer.from(text), 0, scanJson(Buffer.from(text), 0, LIMITS).object);
    const value = body.value();
    assert.deepEqual(Object.keys(value), ["__proto__", "a"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
  });

  test("finds a key's values inside a member, never text that only quotes it", () => {
    const text = JSON.stringify({
      messages: [
        { role: "tool", content: 'the file says "tool_calls": [1]' },
        { role: "assistant", tool_calls: [{ id: "a", function: { name: "f", arguments: "{}" } }] },
        { role: "assistant", tool_calls: [] },
      ],
      tool_calls: "outside the member",
    }).replace('"tool_calls":[]', '"tool_calls" : []');
    const bytes = Buffer.from(text);
    const body = new JsonBody(bytes, 0, scanJson(bytes, 0, LIMITS).object);
    const found = [...body.valueStartsOf(body.find("messages")!, "tool_calls")].map((start) => JSON.parse(bytes.toString("utf8", start, valueEnd(bytes, start))));
    assert.deepEqual(found, [[{ id: "a", function: { name: "f", arguments: "{}" } }], []]);
    // The key's text as a value, anywhere in a message, is no key.
    const valued = Buffer.from(
      JSON.stringify({
        model: "m",
        messages: [
          { role: "user", content: "tool_calls" },
          { role: "assistant", tool_calls: [{ function: { name: "tool_calls" } }] },
        ],
      }),
    );
    const valuedBody = new JsonBody(valued, 0, scanJson(valued, 0, LIMITS).object);
    assert.deepEqual(
      [...valuedBody.valueStartsOf(valuedBody.find("messages")!, "tool_calls")].map((start) => JSON.parse(valued.toString("utf8", start, valueEnd(valued, start)))),
      [[{ function: { name: "tool_calls" } }]],
    );
  });

  test("finds the quote that ends a string, byte by byte or by search, across runs of backslashes at any offset", () => {
    // Strings of every length around the byte-by-byte stretch, with escaped quotes and
    // backslash runs placed so one straddles each boundary; the end is where JSON.stringify put it.
    let seed = 7;
    const next = (range: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * range);
    };
    const pieces = ['"', "\\", "\\\\", 'a"', "b\\", "é", "x", "\n"];
    for (let round = 0; round < 3000; round += 1) {
      let value = "";
      const length = next(160);
      while (value.length < length) value += pieces[next(pieces.length)];
      const text = `{"k":${JSON.stringify(value)},"n":1}`;
      const bytes = Buffer.from(text);
      const open = 5;
      const expected = Buffer.byteLength(`{"k":${JSON.stringify(value)}`) - 1;
      assert.equal(closingQuote(bytes, open), expected, JSON.stringify(value));
    }
    assert.equal(closingQuote(Buffer.from('"abc\\\\"'), 0), 6, "two backslashes, then the closing quote");
    assert.equal(closingQuote(Buffer.from('"abc\\\\\\"'), 0), -1, "three backslashes: the quote is escaped");
    assert.equal(closingQuote(Buffer.from(`"${"x".repeat(100)}\\\\"`), 0), 103);
    assert.equal(closingQuote(Buffer.from(`"${"x".repeat(100)}\\\\\\"`), 0), -1);
  });

  test("tells whether every object of an array has a key, at the objects' own level only", () => {
    const has = (text: string) => everyItemHasKey(Buffer.from(text), 0, Buffer.from("type"));
    assert.equal(has('[{"id":"a","type":"function","function":{"name":"f"}},{"type" : "function"}]'), true);
    assert.equal(has('[{"id":"a","type":"function"},{"id":"b","function":{"type":"x","name":"type"}}]'), false);
    assert.equal(has('[{"id":"type","kind":"type"}]'), false);
    assert.equal(has('[{"arguments":"{\\"type\\":1}"}]'), false);
    assert.equal(has("[]"), true);
    // The array ends at its own closing bracket: what follows it is not read.
    assert.equal(has('[{"type":"function"}],"next":[{"id":"b"}]'), true);
    assert.equal(has('[{"id":"a"}],"next":[{"type":"function"}]'), false);
    // Each item by itself: a key given twice in one item does not make up for another's.
    assert.equal(has('[{"id":"a"},{"type":"function","type":"function"}]'), false);
    assert.equal(has('[{"type":"function","type":"function"},{"id":"a"}]'), false);
    assert.equal(has('[{"type":"function"}, 1, "x", [{"id":"a"}], {"type" : "function", "function": {"type": "x"}}]'), true);
    assert.equal(everyItemHasKey(Buffer.from('{"tool_calls": [{"type":"function"}] }'), 15, Buffer.from("type")), true);
    // An array that never closes (invalid JSON, which the whole parse then reports).
    assert.equal(has('[{"type":"function"}'), false);
    assert.equal(has('[{"type":"function","x":"unterminated'), false);
  });

  test("jumps the scan's long strings and answers as the byte walk does", () => {
    // Arguments long enough to be listed by the scan, holding what the walk must not read as structure.
    const patch = JSON.stringify({ input: `*** Begin Patch\n${'{"type":"x"}, [1, {"id": "y"}] \\" '.repeat(20)}\n*** End Patch` });
    const calls = (withType: boolean[]) =>
      withType.map((typed, index) => ({ id: `call_${index}`, ...(typed ? { type: "function" } : {}), function: { name: "apply_patch", arguments: patch } }));
    for (const withType of [[true, true, true], [true, false, true], [false], [true, true, false]]) {
      const text = JSON.stringify({ model: "m", messages: [{ role: "assistant", content: null, tool_calls: calls(withType) }] });
      const bytes = Buffer.from(text);
      const scan = scanJson(bytes, 0, LIMITS);
      assert.ok(scan.longStrings && scan.longStrings.length >= 3 * withType.length, "the arguments are long strings");
      const start = text.indexOf('"tool_calls":') + '"tool_calls":'.length;
      const expected = withType.every(Boolean);
      assert.equal(everyItemHasKey(bytes, start, Buffer.from("type"), scan.longStrings), expected, JSON.stringify(withType));
      assert.equal(everyItemHasKey(bytes, start, Buffer.from("type")), expected);
    }
    // The list is what is jumped: a "string" said to run over the untyped item hides it.
    const text = '[{"type":"function","arguments":"x"},{"id":"b"}]';
    const open = text.indexOf('"x"');
    const hidden = [open, text.indexOf('"b"') + 2, 4];
    assert.equal(everyItemHasKey(Buffer.from(text), 0, Buffer.from("type")), false);
    assert.equal(everyItemHasKey(Buffer.from(text), 0, Buffer.from("type"), hidden), true);
  });

  test("a watched array: every tool call's type checked as the scan reads, as the walk checks it", () => {
    const watch = { array: Buffer.from("tool_calls"), key: Buffer.from("type") };
    const unkeyed = (text: string) => scanJson(Buffer.from(text), 0, LIMITS, watch).object?.unkeyedItems;
    const body = (...messages: unknown[]) => JSON.stringify({ model: "m", messages });
    const call = (typed: boolean, args = "{}") => ({ id: "c", ...(typed ? { type: "function" } : {}), function: { name: "f", arguments: args } });
    const patch = JSON.stringify({ input: `${'"tool_calls":[{"id":"x"}] {"type":1} '.repeat(12)}` });
    const cases: [string, boolean][] = [
      [body({ role: "user", content: "hi" }), false],
      [body({ role: "assistant", tool_calls: [call(true), call(true, patch)] }, { role: "tool", content: '"tool_calls":[{}]' }), false],
      [body({ role: "assistant", tool_calls: [call(true)] }, { role: "assistant", tool_calls: [call(true), call(false)] }), true],
      [body({ role: "assistant", tool_calls: [call(false, patch)] }), true],
      // The type of the call's function, not of the call, does not count.
      [body({ role: "assistant", tool_calls: [{ id: "c", function: { type: "function", name: "f" } }] }), true],
      [body({ role: "assistant", tool_calls: [] }), false],
      [body({ role: "assistant", tool_calls: [1, "x", call(true)] }), false],
      // A value that is not an array is left to the whole parse.
      [body({ role: "assistant", tool_calls: null }), true],
      ['{"model":"m","messages":[{"role":"assistant","tool_calls" : [ {"type" : "function", "id":"a"} ]}]}', false],
    ];
    for (const [text, expected] of cases) {
      assert.equal(unkeyed(text), expected, text.slice(0, 120));
      // The byte walk the relay used before agrees wherever the value is an array.
      const bytes = Buffer.from(text);
      const walk = [...text.matchAll(/"tool_calls"\s*:\s*\[/g)].filter((match) => !text.slice(0, match.index).endsWith("\\"));
      if (!text.includes('"tool_calls":null')) {
        const starts = walk
          .map((match) => match.index + match[0].length - 1)
          .filter((start) => scanJson(bytes, 0, LIMITS).longStrings!.every((_, at, list) => at % 3 !== 0 || start < list[at]! || start > list[at + 1]!));
        assert.equal(!starts.every((start) => everyItemHasKey(bytes, start, Buffer.from("type"))), expected, `walk: ${text.slice(0, 120)}`);
      }
    }
    assert.equal(scanJson(Buffer.from(body({ role: "user" })), 0, LIMITS).object?.unkeyedItems, undefined, "not asked, not answered");
  });

  test("refuses a member that is not valid JSON when it is parsed", () => {
    const text = '{"model":"m","messages":[{"role":"user","content":tru}]}';
    const bytes = Buffer.from(text);
    const body = new JsonBody(bytes, 0, scanJson(bytes, 0, LIMITS).object);
    assert.equal(body.parseMember(body.find("model")!), "m");
    assert.throws(() => body.value(), /not valid JSON/);
  });
});

describe("encodeJson", () => {
  test("writes the bytes JSON.stringify writes, for long arrays, skipped members and items, nested toJSON and non-ASCII text", () => {
    const random = seeded(13);
    const values: unknown[] = [
      {
        a: undefined,
        b: () => 1,
        c: [1, undefined, () => 2, Symbol("s"), ...Array.from({ length: 30 }, (_, index) => ({ index, text: 'ünïcödé ✓ "q"' }))],
        d: new Date(0),
        e: null,
      },
      { messages: Array.from({ length: 200 }, () => randomValue(0, random)), tools: Array.from({ length: 17 }, () => randomValue(1, random)), model: "m" },
      [1, 2, 3],
      "text",
      { toJSON: () => ({ replaced: true }) },
      {},
      { only: undefined },
    ];
    for (const value of values) assert.equal(encodeJson(value).toString("utf8"), JSON.stringify(value));
  });

  test("writes the bytes JSON.stringify writes for long ASCII items, then three-byte text, emoji and a long member", () => {
    const ascii = Array.from({ length: 20 }, (_, index) => ({ role: "tool", content: `line ${index}\n`.repeat(1500) }));
    const wide = Array.from({ length: 30 }, (_, index) => ({ role: "user", content: "✓ ünï 😀".repeat(1000 + index * 100) }));
    const value = { model: "m", messages: [...ascii, ...wide], system: "ß".repeat(200_000), tools: [{ name: "t" }] };
    assert.ok(encodeJson(value).equals(Buffer.from(JSON.stringify(value))));
  });
});
