import { jsonResponse, type ApiHandler } from "@/lib/canonical/api-types";
import { openApiDocument } from "./build-document";

/** GET /openapi.json: public, like every vendor's published spec. */
export const handleOpenApi: ApiHandler = async () => jsonResponse(200, openApiDocument(), { "cache-control": "public, max-age=300" });
