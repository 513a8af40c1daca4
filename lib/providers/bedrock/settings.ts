import { z } from "zod";
import type { ProviderSettings } from "@/lib/providers/provider";
import type { Channel } from "@/lib/routing/channel";

// A Bedrock channel's own setting: the AWS region its runtime endpoint and signatures are for.

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

export const bedrockSettings: ProviderSettings = {
  schema: z.strictObject({
    region: z.string({ error: "an AWS region such as us-east-1 is required" }).trim().regex(REGION, "an AWS region such as us-east-1 is required"),
  }),
  fields: [
    {
      name: "region",
      label: "AWS region",
      required: true,
      placeholder: "us-east-1",
      help: "The region where the models are enabled (the Bedrock console shows it in the top bar, e.g. us-east-1). Requests are signed for it, and the default base URL is its bedrock-runtime endpoint. Cross-region inference profiles (us.anthropic.…) are called in their source region.",
    },
  ],
};

export function bedrockRegion(channel: Channel): string {
  return String(channel.settings.region ?? "");
}
