import { notFound } from "next/navigation";

/** Unknown console paths get the console's own not-found page, inside its frame and menu. */
export default function MissingConsolePage() {
  notFound();
}
