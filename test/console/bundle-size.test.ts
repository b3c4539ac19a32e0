// The built console (dist/console, made by `npm run build`, which `npm test` runs before vitest):
// its JavaScript stays within the budget of 250 KB gzipped (1 KB = 1000 bytes), and index.html
// loads only local assets that exist, with no inline script or style (the CSP is `default-src 'self'`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const distDir = join(import.meta.dirname, '..', '..', 'dist', 'console');
const assetsDir = join(distDir, 'assets');
const BUDGET_BYTES = 250_000;

function builtHtml(): string {
  const path = join(distDir, 'index.html');
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return readFileSync(path, 'utf8');
}

/** Every URL the page loads or links to: src and href attribute values. */
function referencedUrls(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']*)["']/gi)].map((match) => match[1] ?? '');
}

describe('console bundle', () => {
  it('keeps the gzipped JavaScript within 250 KB', () => {
    builtHtml();
    const scripts = readdirSync(assetsDir).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce((sum, name) => sum + gzipSync(readFileSync(join(assetsDir, name)), { level: 9 }).length, 0);
    console.info(`console JavaScript: ${scripts.join(', ')} = ${(gzipped / 1000).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('references only local assets that exist', () => {
    const urls = referencedUrls(builtHtml());
    const assets = urls.filter((url) => !url.startsWith('data:'));
    expect(assets.some((url) => url.endsWith('.js'))).toBe(true);
    expect(assets.some((url) => url.endsWith('.css'))).toBe(true);
    for (const url of assets) {
      expect(url, 'no other origin, no protocol-relative URL').toMatch(/^\/console\/assets\/[\w.-]+$/);
      expect(existsSync(join(assetsDir, url.slice('/console/assets/'.length))), `${url} exists`).toBe(true);
    }
  });

  it('holds no inline script, style or event handler', () => {
    const html = builtHtml();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc\s*=/);
      expect(body?.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
  });
});
