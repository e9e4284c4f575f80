// `npm start`: install and build what is missing, then serve. Listens on 127.0.0.1 unless HOST says
// otherwise (adapter-node alone would listen on every interface).
import { ensureBuild, ensureDependencies, root } from './ensure.mjs';

ensureDependencies();
ensureBuild();
process.env.HOST ||= '127.0.0.1';
process.env.PORT ||= '3000';
// Our routes cap bodies at 1 MiB themselves and answer in JSON; adapter-node's 512K cap would cut first.
process.env.BODY_SIZE_LIMIT ||= '2M';
process.chdir(root);
await import(new URL('../build/index.js', import.meta.url).href);
