// Moved: the API request and response types are base types (lib/canonical/api-types.ts).
export * from "@/lib/canonical/api-types";
