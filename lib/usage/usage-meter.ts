import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";

/**
 * Collects what a request produced while its response flows: upstream usage when
 * reported, otherwise the generated text for a tokenizer estimate, and the time to
 * first token. Providers and renderers write to it; the request log reads it once.
 */
export class UsageMeter {
  readonly startedAt = performance.now();
  firstTokenAt: number | undefined;
  usage: Usage | undefined;
  generatedText = "";
  /** An error reported inside an otherwise successful (200) stream. */
  error: GatewayError | undefined;

  recordOutput(text: string): void {
    if (this.firstTokenAt === undefined) this.firstTokenAt = performance.now();
    // Only kept for estimating when the upstream reports no usage.
    if (this.usage === undefined) this.generatedText += text;
  }

  markFirstToken(): void {
    if (this.firstTokenAt === undefined) this.firstTokenAt = performance.now();
  }

  recordUsage(usage: Usage): void {
    this.usage = usage;
    this.generatedText = "";
  }

  recordError(error: GatewayError): void {
    this.error ??= error;
  }

  get firstTokenMs(): number | undefined {
    return this.firstTokenAt === undefined ? undefined : Math.round(this.firstTokenAt - this.startedAt);
  }
}
