// Dashboard entry: an extension page in a tab, with a client on the UI port.
import { render } from "preact";
import { pageClient } from "../ui/page-entry.ts";
import { Dashboard } from "./dashboard-view.tsx";

const { client } = pageClient();
render(<Dashboard client={client} now={() => Date.now()} />, document.getElementById("app")!);
