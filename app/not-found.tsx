import type { Metadata } from "next";
import { NotFoundNotice } from "./_components/not-found-notice";

export const metadata: Metadata = { title: "Not found · Model Gateway" };

/** Any unknown page outside the API (API paths answer JSON in the caller's format). */
export default function NotFound() {
  return (
    <main className="px-4">
      <NotFoundNotice />
    </main>
  );
}
