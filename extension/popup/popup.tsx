// Popup entry: renders the popup view with a client on the UI port.
import { render } from "preact";
import { openPage, pageClient } from "../ui/page-entry.ts";
import { Popup } from "./popup-view.tsx";

const { api, client } = pageClient();
render(
  <Popup
    client={client}
    openPage={(page) => {
      openPage(api, page);
      window.close();
    }}
    now={() => Date.now()}
  />,
  document.getElementById("app")!,
);
