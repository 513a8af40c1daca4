// JSON.stringify's bytes for a request body, written member by member and a long array
// item by item: the same bytes, without a string the size of the whole body (a string
// past 128 KB is allocated in fresh pages on every request, and encoding one to UTF-8 is
// the costliest step of a translated agent turn).

/** Arrays longer than this are written item by item. */
const ITEM_BY_ITEM_ABOVE = 16;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function";

const skipped = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** The UTF-8 bytes of JSON.stringify(value). */
export function encodeJson(value: unknown): Buffer {
  if (!isPlainObject(value)) return Buffer.from(JSON.stringify(value) ?? "null");
  const parts: Buffer[] = [];
  let text = "{";
  let first = true;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (skipped(member)) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    if (Array.isArray(member) && member.length > ITEM_BY_ITEM_ABOVE && typeof (member as { toJSON?: unknown }).toJSON !== "function") {
      parts.push(Buffer.from(`${text}[`));
      for (let index = 0; index < member.length; index += 1) {
        const item = member[index];
        // As JSON.stringify writes them inside an array.
        const encoded = skipped(item) ? "null" : JSON.stringify(item);
        parts.push(Buffer.from(index === 0 ? encoded : `,${encoded}`));
      }
      text = "]";
    } else text += JSON.stringify(member);
  }
  parts.push(Buffer.from(`${text}}`));
  return Buffer.concat(parts);
}
