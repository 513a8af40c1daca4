import { NotFoundNotice } from "@/app/_components/not-found-notice";

/** A console record that is gone (a log row, say), shown inside the console's frame. */
export default function ConsoleNotFound() {
  return <NotFoundNotice what="page or record" />;
}
