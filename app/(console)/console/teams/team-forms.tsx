"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { RowActions } from "@/app/_components/data-table";
import { LimitWindowsEditor } from "@/app/_components/limit-windows-editor";
import { Button, ErrorNote, Field, Input, Select } from "@/app/_components/ui";
import { useRowAction } from "@/app/_components/use-row-action";
import type { LimitWindow } from "@/lib/limits/limit-windows";
import {
  addMemberAction,
  createTeamAction,
  deleteTeamAction,
  removeMemberAction,
  setTeamTokenEnabledAction,
  updateMemberAction,
  updateTeamAction,
  type TeamActionResult,
} from "./actions";

const modelList = (text: string) =>
  text
    .split(",")
    .map((model) => model.trim())
    .filter(Boolean);
const windowsOf = (form: FormData, field = "limits") => JSON.parse(String(form.get(field) ?? "[]")) as unknown[];

/** A form whose submit runs a server action, keeps its error, and refreshes the page on success. */
function useFormAction(done?: (result: TeamActionResult) => void) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const submit = (action: (form: FormData) => Promise<TeamActionResult>) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    startTransition(async () => {
      const result = await action(form);
      if (!result.ok) return setError(result.error);
      setError(null);
      done?.(result);
      router.refresh();
    });
  };
  return { submit, error, pending };
}

/** A platform admin's form for a new team, or for the settings of one (name, models, budget and end-user windows). */
export function TeamSettingsForm({ team }: { team?: { id: string; name: string; models: string[]; limits: LimitWindow[]; endUserLimits: LimitWindow[] } }) {
  const router = useRouter();
  const { submit, error, pending } = useFormAction((result) => {
    if (!team && result.ok && result.id) router.push(`/console/teams/${result.id}`);
  });
  const label = team ? "Team settings" : "Create team";
  return (
    <form
      aria-label={label}
      className="space-y-4"
      onSubmit={submit((form) => {
        const input = {
          name: String(form.get("name") ?? ""),
          models: modelList(String(form.get("models") ?? "")),
          limits: windowsOf(form),
          endUserLimits: windowsOf(form, "endUserLimits"),
        };
        return team ? updateTeamAction(team.id, input) : createTeamAction(input);
      })}
    >
      <h2 className="text-base font-semibold">{team ? "Settings" : "New team"}</h2>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Name" htmlFor={`team-name-${team?.id ?? "new"}`}>
          <Input id={`team-name-${team?.id ?? "new"}`} name="name" required maxLength={100} defaultValue={team?.name} placeholder="e.g. search" />
        </Field>
        <Field label="Models" htmlFor={`team-models-${team?.id ?? "new"}`} hint="Comma-separated public model names; empty for every model.">
          <Input id={`team-models-${team?.id ?? "new"}`} name="models" defaultValue={team?.models.join(", ")} placeholder="every model" />
        </Field>
      </div>
      <LimitWindowsEditor windows={team?.limits ?? []} idPrefix={`team-${team?.id ?? "new"}`} />
      <LimitWindowsEditor
        windows={team?.endUserLimits ?? []}
        idPrefix={`team-end-user-${team?.id ?? "new"}`}
        field="endUserLimits"
        help="Each end user of this team's tokens (named by the request's user, safety_identifier, metadata.user_id or the x-end-user-id header) gets these windows of their own."
      />
      {error && <ErrorNote>{error}</ErrorNote>}
      <Button type="submit" disabled={pending}>
        {pending ? "Saving…" : team ? "Save team" : "Create team"}
      </Button>
    </form>
  );
}

export function DeleteTeamButton({ team }: { team: { id: string; name: string } }) {
  const { run, pending, error, router } = useRowAction();
  return (
    <RowActions>
      <Button
        variant="secondary"
        className="text-red-700 dark:text-red-400"
        disabled={pending}
        onClick={() => {
          if (!window.confirm(`Delete the team ${team.name}? Its tokens are disabled.`)) return;
          run(async () => {
            const result = await deleteTeamAction(team.id);
            if (result.ok) router.push("/console/teams");
            return result;
          });
        }}
      >
        Delete team
      </Button>
      {error && <ErrorNote>{error}</ErrorNote>}
    </RowActions>
  );
}

/** Adds an account to the team by its email, with a role and an optional cap. */
export function AddMemberForm({ teamId, canAddOwners }: { teamId: string; canAddOwners: boolean }) {
  const [round, setRound] = useState(0);
  const { submit, error, pending } = useFormAction(() => setRound(round + 1));
  return (
    <form
      key={round}
      aria-label="Add member"
      className="space-y-4"
      onSubmit={submit((form) => addMemberAction(teamId, { email: String(form.get("email") ?? ""), role: String(form.get("role") ?? "member"), limits: windowsOf(form) }))}
    >
      <h2 className="text-base font-semibold">Add member</h2>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Email" htmlFor="member-email">
          <Input id="member-email" name="email" type="email" required placeholder="someone@example.com" />
        </Field>
        <Field label="Role" htmlFor="member-role" hint="Owners and admins manage the team's tokens and members.">
          <Select id="member-role" name="role" defaultValue="member">
            <option value="member">member</option>
            <option value="admin">admin</option>
            {canAddOwners && <option value="owner">owner</option>}
          </Select>
        </Field>
      </div>
      <LimitWindowsEditor windows={[]} idPrefix="member-new" />
      {error && <ErrorNote>{error}</ErrorNote>}
      <Button type="submit" disabled={pending}>
        {pending ? "Adding…" : "Add member"}
      </Button>
    </form>
  );
}

/** A member's role and cap, and their removal (their team tokens stop working). */
export function MemberActions({
  teamId,
  member,
  canManageOwners,
}: {
  teamId: string;
  member: { userId: string; email: string; role: string; limits: LimitWindow[] };
  canManageOwners: boolean;
}) {
  const { run, pending, error } = useRowAction();
  const locked = member.role === "owner" && !canManageOwners;
  return (
    <RowActions className="items-start">
      <details className="w-full text-sm">
        <summary className="cursor-pointer">Role and cap</summary>
        <form
          aria-label={`Member ${member.email}`}
          className="mt-2 space-y-2"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            run(() => updateMemberAction(teamId, member.userId, { role: String(form.get("role")), limits: windowsOf(form) }));
          }}
        >
          <Select name="role" defaultValue={member.role} aria-label="Role" disabled={locked}>
            <option value="member">member</option>
            <option value="admin">admin</option>
            {(canManageOwners || member.role === "owner") && <option value="owner">owner</option>}
          </Select>
          <LimitWindowsEditor windows={member.limits} idPrefix={`member-${member.userId}`} />
          <Button type="submit" size="sm" disabled={pending || locked}>
            Save member
          </Button>
        </form>
      </details>
      <Button
        size="sm"
        variant="secondary"
        className="text-red-700 dark:text-red-400"
        disabled={pending || locked}
        onClick={() => {
          if (window.confirm(`Remove ${member.email}? Their team tokens stop working.`)) run(() => removeMemberAction(teamId, member.userId));
        }}
      >
        Remove
      </Button>
      {error && (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </RowActions>
  );
}

export function TeamTokenToggle({ teamId, token }: { teamId: string; token: { id: string; name: string; enabled: boolean } }) {
  const { run, pending, error } = useRowAction();
  return (
    <RowActions>
      <Button
        size="sm"
        variant="secondary"
        disabled={pending}
        aria-label={`${token.enabled ? "Disable" : "Enable"} ${token.name}`}
        onClick={() => run(() => setTeamTokenEnabledAction(teamId, token.id, !token.enabled))}
      >
        {token.enabled ? "Disable" : "Enable"}
      </Button>
      {error && (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </RowActions>
  );
}
