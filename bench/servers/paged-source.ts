import { startFixtureSite } from '../../test/support/site.js';

/**
 * The pagination figures' source (bench/pagination.ts): the fixture site's paged lists, in a process of its own
 * so that serving the pages never shares the measured process's event loop (as a real site never does).
 */
const site = await startFixtureSite();
process.stdout.write(`paged source ready on ${site.origin}\n`);
process.on('SIGTERM', () => void site.close().then(() => process.exit(0)));
