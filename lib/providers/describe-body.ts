// An upstream body the gateway could not read, in words for the administrator: a web page
// is named as one (its markup is no help in a log line or a form), other text is cut short.

const WEB_PAGE = /^\s*(<!doctype\s+html|<html|<head|<body)/i;
const WEB_PAGE_MESSAGE = /serves a web page \(HTTP \d+, text\/html\), not an API/;

export function looksLikeWebPage(text: string): boolean {
  return WEB_PAGE.test(text);
}

/** Whether a message is the one describeUnreadableBody gives a web page. */
export function isWebPageMessage(message: string): boolean {
  return WEB_PAGE_MESSAGE.test(message);
}

export function describeUnreadableBody(status: number, bodyText: string): string {
  const text = bodyText.trim();
  if (looksLikeWebPage(text)) return `The upstream serves a web page (HTTP ${status}, text/html), not an API.`;
  if (!text) return `The upstream returned HTTP ${status}.`;
  return `The upstream returned HTTP ${status}. ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}
