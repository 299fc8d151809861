// One stylesheet for every view (pages and the overlay's shadow root): restrained, readable, with visible focus
// and states that never rely on colour alone (each has its icon and word).
export const UI_CSS = `
:host, .orc-root { all: initial; }
.orc-root { display: block; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #111827;
  background: #ffffff; }
.orc-root * { box-sizing: border-box; }
.orc-root h1 { font-size: 15px; margin: 0; }
.orc-root h2 { font-size: 12px; margin: 12px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: #374151; }
.orc-root h3 { font-size: 13px; margin: 0; }
.orc-root p { margin: 4px 0; }
.orc-root button, .orc-root input, .orc-root textarea, .orc-root select { font: inherit; }
.orc-root button { border: 1px solid #6b7280; background: #f9fafb; color: #111827; border-radius: 6px;
  padding: 3px 10px; cursor: pointer; }
.orc-root button:hover { background: #eef2ff; }
.orc-root button:disabled, .orc-root button[aria-disabled="true"] { color: #4b5563; background: #e5e7eb; cursor: not-allowed; }
.orc-root button.danger { border: 2px solid #b91c1c; color: #991b1b; background: #fff; font-weight: 600; }
.orc-root button.danger:hover { background: #fef2f2; }
.orc-root button.primary { border-color: #1d4ed8; background: #1d4ed8; color: #fff; }
.orc-root :focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
.orc-root .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.orc-root .spread { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
.orc-root .muted { color: #4b5563; }
.orc-root .card { border: 1px solid #d1d5db; border-radius: 8px; padding: 8px 10px; margin: 6px 0; }
.orc-root .state { display: inline-flex; gap: 4px; align-items: center; font-weight: 600; }
.orc-root .state-needs-you, .orc-root .state-stalled, .orc-root .state-failed { color: #991b1b; }
.orc-root .state-working, .orc-root .state-resuming { color: #1e40af; }
.orc-root .state-complete { color: #166534; }
.orc-root .conn { display: inline-flex; gap: 4px; align-items: center; font-weight: 600; }
.orc-root .conn-connected { color: #166534; }
.orc-root .conn-problem { color: #991b1b; }
.orc-root .banner { border: 2px solid #b91c1c; border-radius: 8px; padding: 8px; margin: 8px 0; background: #fef2f2; }
.orc-root .warn { border: 2px solid #b45309; border-radius: 8px; padding: 8px; margin: 6px 0; background: #fffbeb; }
.orc-root .switch { display: inline-flex; align-items: center; gap: 6px; }
.orc-root .switch[aria-checked="true"] { background: #166534; color: #fff; border-color: #166534; }
.orc-root dl.counts { display: grid; grid-template-columns: 1fr auto; gap: 2px 12px; margin: 6px 0; }
.orc-root dl.counts dt { margin: 0; } .orc-root dl.counts dd { margin: 0; font-weight: 600; text-align: right; }
.orc-root table { border-collapse: collapse; width: 100%; }
.orc-root th, .orc-root td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
.orc-root .override { font-style: italic; border-bottom: 2px dotted #7c3aed; }
.orc-root .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
.orc-root code { font-family: ui-monospace, monospace; background: #f3f4f6; padding: 0 3px; border-radius: 3px; }
.orc-root a { color: #1d4ed8; }
.orc-root [role="alert"] { color: #991b1b; }
`;
