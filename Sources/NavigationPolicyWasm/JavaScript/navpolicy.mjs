// navpolicyd's policy engine as WebAssembly, ready to use: `navpolicy-engine.mjs` with the
// module loaded from `navpolicy.wasm` beside this file (top-level await). Service workers, which
// may not use top-level await, import `navpolicy-engine.mjs` and call `initialize()` themselves
// (docs/integrations/web.md).
import { initialize } from './navpolicy-engine.mjs';

export { NavigationPolicy, NavigationPolicyError, initialize } from './navpolicy-engine.mjs';

await initialize();
