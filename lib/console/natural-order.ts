const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/** Compares names as people read them: `scale-mock-2` before `scale-mock-10`. */
export const naturalOrder = (a: string, b: string): number => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
