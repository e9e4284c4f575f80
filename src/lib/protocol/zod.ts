import { z } from 'zod';

// zod compiles object parsers with `new Function` unless told not to, which the page's CSP (no
// 'unsafe-eval') refuses and reports as a violation. These schemas parse small frames and bodies,
// where the interpreter's speed is plenty.
z.config({ jitless: true });

export { z };
