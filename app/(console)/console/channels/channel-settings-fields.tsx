"use client";

import { Field, Input } from "@/app/_components/ui";
import type { SettingField } from "@/lib/providers/provider";

const PREFIX = "setting:";

/** The chosen channel type's own settings; a secret is never shown, and left empty it keeps the stored one. */
export function ChannelSettingsFields({ fields, values, secretsSet }: { fields: SettingField[]; values: Record<string, unknown>; secretsSet: string[] }) {
  return (
    <>
      {fields.map((field) => (
        <Field
          key={field.name}
          label={field.label}
          htmlFor={`channel-setting-${field.name}`}
          hint={field.secret && secretsSet.includes(field.name) ? `${field.help} Stored encrypted. Leave empty to keep it.` : field.help}
        >
          <Input
            id={`channel-setting-${field.name}`}
            name={`${PREFIX}${field.name}`}
            type={field.secret ? "password" : "text"}
            autoComplete="off"
            required={field.required && !(field.secret && secretsSet.includes(field.name))}
            placeholder={field.placeholder}
            defaultValue={field.secret ? undefined : String(values[field.name] ?? "")}
          />
        </Field>
      ))}
    </>
  );
}

/** The settings a form holds, as the channel API takes them (empty fields left out). */
export function readSettings(data: FormData): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [name, value] of data.entries()) {
    if (name.startsWith(PREFIX) && typeof value === "string" && value.trim() !== "") settings[name.slice(PREFIX.length)] = value.trim();
  }
  return settings;
}
