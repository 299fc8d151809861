// Imported first by every extension entry. Extension pages and content scripts forbid `eval`/`new Function`
// (MV3 CSP); zod would otherwise try it once to compile fast parsers and leave a CSP violation in the
// extension's error log. The interpreted parsers are fast enough for our message sizes.
import { config } from "zod";

config({ jitless: true });
