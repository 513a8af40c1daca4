"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { createFirstAdmin as create } from "@/lib/console/first-admin";
import { needsSetup } from "@/lib/console/users";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { getRuntime } from "@/lib/runtime";

export type SetupState = { error: string | null };

/** Creates the first admin for whoever holds the setup code. Refused once any account exists. */
export async function createFirstAdmin(form: FormData): Promise<SetupState> {
  const runtime = await getRuntime();
  if (!(await needsSetup(runtime))) redirect("/login");
  const field = (name: string) => String(form.get(name) ?? "");
  const address = (await headers()).get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  // The form signs the new admin in with the same credentials.
  return create(runtime, { email: field("email"), password: field("password"), confirm: field("confirm"), code: field("code") }, address);
}
