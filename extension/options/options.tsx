// Options page entry (Settings / Advanced), with a client on the UI port.
import { render } from "preact";
import { pageClient } from "../ui/page-entry.ts";
import { Options } from "./options-view.tsx";

const { client } = pageClient();
render(<Options client={client} />, document.getElementById("app")!);
