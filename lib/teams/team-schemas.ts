import { z } from "zod";
import { limitWindowsSchema } from "@/lib/limits/limit-windows";

// What the admin API and the team routes take for teams and their members.

export const TEAM_ROLES = ["owner", "admin", "member"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const teamFields = {
  name: z.string().trim().min(1).max(100),
  /** An allowlist of public model names; [] or absent: every model. */
  models: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
  /** Limit windows on the whole team, as tokens and users take them. */
  limits: limitWindowsSchema.optional(),
  /** Windows every distinct end user of the team's tokens gets. */
  endUserLimits: limitWindowsSchema.optional(),
  /** MCP server names the team may use. */
  mcp: z.array(z.string().trim().min(1).max(200)).max(100).optional(),
};
export const createTeamSchema = z.strictObject(teamFields);
export const updateTeamSchema = z.strictObject(teamFields).partial();
export type CreateTeamInput = z.infer<typeof createTeamSchema>;
export type UpdateTeamInput = z.infer<typeof updateTeamSchema>;

export const addMemberSchema = z.strictObject({
  userId: z.string().trim().min(1),
  role: z.enum(TEAM_ROLES),
  /** This member's cap within the team's budget. */
  limits: limitWindowsSchema.optional(),
});
export const updateMemberSchema = z.strictObject({ role: z.enum(TEAM_ROLES), limits: limitWindowsSchema }).partial();
export type AddMemberInput = z.infer<typeof addMemberSchema>;
export type UpdateMemberInput = z.infer<typeof updateMemberSchema>;
