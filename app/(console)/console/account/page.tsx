import { PageHeader } from "@/app/_components/ui";
import { requireUser } from "@/lib/console/require-session";
import { PasswordForm } from "./password-form";

export const dynamic = "force-dynamic";

export default async function AccountPage() {
  const user = await requireUser("/console/account");
  return (
    <>
      <PageHeader title="Your account" description={`${user.email} · ${user.role}`} />
      <PasswordForm />
    </>
  );
}
