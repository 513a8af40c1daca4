// Formatting helpers shared by console pages (server and client).

export function formatNumber(value: number): string {
  return new Intl.NumberFormat("en-US").format(value);
}

export function formatCompact(value: number): string {
  return new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(value);
}

export function formatDateTime(iso: string | null): string {
  if (!iso) return "—";
  return `${new Date(iso).toISOString().replace("T", " ").slice(0, 19)} UTC`;
}

export function formatRelative(iso: string | null, now = Date.now()): string {
  if (!iso) return "never";
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** US dollars: cents for large sums, more digits for the fractions single requests cost. */
export function formatUsd(value: number): string {
  if (value === 0) return "$0";
  if (value >= 100) return `$${value.toFixed(0)}`;
  if (value >= 1) return `$${value.toFixed(2)}`;
  return `$${value.toPrecision(2)}`;
}

/** A cost as the console shows it everywhere: dollars when priced (even $0), "—" when no price applied. */
export function formatCost(costUsd: number, priced: boolean): string {
  return priced || costUsd > 0 ? formatUsd(costUsd) : "—";
}

/** Splits text at Markdown code spans (`code`); an unpaired backtick stays as written. */
export function splitInlineCode(text: string): { text: string; code: boolean }[] {
  const parts: { text: string; code: boolean }[] = [];
  let rest = text;
  for (let match = /`([^`]+)`/.exec(rest); match; match = /`([^`]+)`/.exec(rest)) {
    if (match.index > 0) parts.push({ text: rest.slice(0, match.index), code: false });
    parts.push({ text: match[1]!, code: true });
    rest = rest.slice(match.index + match[0].length);
  }
  if (rest) parts.push({ text: rest, code: false });
  return parts;
}
