// Module hooks (node:module register) that let node import the browser game's scripts as the
// page does: the bare names of the page's import map (index.html: 'preact', 'htm', …) go to the
// files of web/vendor, and the scripts load as ES modules (they are, without a package.json).
import { readFileSync } from 'node:fs';

const WEB = new URL('../../src/rummy500/web/', import.meta.url);
const page = readFileSync(new URL('index.html', WEB), 'utf8');
const mapText = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page);
if (!mapText) throw new Error('index.html has no import map');
const IMPORTS = JSON.parse(mapText[1]).imports;

export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(IMPORTS, specifier)) {
    // the page's paths start at the site's root ('/vendor/…'): here, web/ is the root
    const path = IMPORTS[specifier].replace(/^\//, './');
    return { url: new URL(path, WEB).href, format: 'module', shortCircuit: true };
  }
  const resolved = await nextResolve(specifier, context);
  return resolved.url.startsWith(WEB.href) ? { ...resolved, format: 'module' } : resolved;
}
