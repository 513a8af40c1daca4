import Form from "next/form";
import { Button, Select } from "@/app/_components/ui";

/** The Dashboard's team filter: a GET form, so the choice lives in the URL beside the range. */
export function TeamFilter({ teams, current, range }: { teams: { id: string; name: string }[]; current: string | undefined; range: Record<string, string> }) {
  if (teams.length === 0) return null;
  return (
    <Form action="/console" aria-label="Team filter" className="flex items-end gap-2">
      {Object.entries(range).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <label className="flex flex-col text-xs text-zinc-500">
        Team
        <Select name="team" defaultValue={current ?? ""} className="py-1.5">
          <option value="">{"All traffic"}</option>
          {teams.map((team) => (
            <option key={team.id} value={team.id}>
              {team.name}
            </option>
          ))}
        </Select>
      </label>
      <Button type="submit" size="sm" variant="secondary" className="py-1.5">
        Filter
      </Button>
    </Form>
  );
}
