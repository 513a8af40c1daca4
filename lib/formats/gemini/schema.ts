import { z } from "zod";
import { jsonObject } from "@/lib/formats/json-object";
import { messageList } from "@/lib/formats/message-list";

// Gemini generateContent request (camelCase, as @google/genai sends it). Loose objects:
// unknown fields pass through untouched to Gemini upstreams.

export const partSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
  fileData: z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: z.looseObject({ name: z.string(), args: jsonObject.optional(), id: z.string().optional() }).optional(),
  functionResponse: z.looseObject({ name: z.string(), response: jsonObject.optional(), id: z.string().optional() }).optional(),
});
export type GeminiPart = z.infer<typeof partSchema>;

export const contentSchema = z.looseObject({
  role: z.enum(["user", "model", "function"]).optional(),
  parts: z.array(partSchema),
});

const functionDeclaration = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  parameters: jsonObject.optional(),
  parametersJsonSchema: z.unknown().optional(),
});

export const generateContentRequestSchema = z.looseObject({
  contents: messageList(z.array(contentSchema).min(1)),
  systemInstruction: z.union([z.string(), z.looseObject({ parts: z.array(partSchema) })]).optional(),
  tools: z.array(z.looseObject({ functionDeclarations: z.array(functionDeclaration).optional() })).optional(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({
          mode: z.enum(["AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED"]).optional(),
          allowedFunctionNames: z.array(z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
  generationConfig: z
    .looseObject({
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().min(0).max(1).optional(),
      topK: z.number().int().min(0).optional(),
      maxOutputTokens: z.number().int().min(1).optional(),
      stopSequences: z.array(z.string()).max(5).optional(),
      candidateCount: z.number().int().min(1).optional(),
      responseMimeType: z.string().optional(),
      thinkingConfig: z
        .looseObject({
          thinkingBudget: z.number().int().min(-1).optional(),
          includeThoughts: z.boolean().optional(),
          thinkingLevel: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  safetySettings: z.array(z.looseObject({})).optional(),
});

export type GenerateContentRequest = z.infer<typeof generateContentRequestSchema>;
