// The console's Flows pages in Chromium against the whole service (test/e2e/stack.ts, embedded
// backend) serving a copy of flows/ watched as `serve --watch` watches it: the list says there are
// no load browser.problems; the agent flow is drawn with its branches (the command switch and its cases,
// the takeover if with then / else, the foreach over the burst); a step selected by keyboard and one
// by a click show their type, `file:line` and a param; a broken file added to the directory is
// listed with `file:line:col`. Screenshots (1280×800 and 390 px wide) go to the test's temp folder.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowsResponse } from '../../console/server/api-types.js';
import { startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-flows-token';
const available = consoleTestsRunnable('test/browser/console-flows.test.ts');

/** 1-based line of `- id: <step>` in `text`. */
function stepLine(text: string, step: string): number {
  return text.split('\n').findIndex((line) => new RegExp(`^\\s*- id: ${step}\\s*$`).test(line)) + 1;
}

describe.skipIf(!available)('the Flows pages against the service, in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadflow-flows-dir-'));
    cpSync('flows', dir, { recursive: true });
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN }, flowsDir: dir, watchFlows: true });
    browser = await openConsoleBrowser('console-flows');
    page = browser.page;
    page.setDefaultTimeout(8_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Screenshots at 1280×800 and 390 px wide; the narrow one after loading the page again at that width (a phone opens it so). */
  async function shoot(name: string, narrow: { fullPage?: boolean } = {}): Promise<void> {
    await page.screenshot({ path: join(browser.shots, `${name}-1280.png`) });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('main h1').waitFor({ state: 'visible' });
    await page.locator('[aria-busy], p[role="status"]').waitFor({ state: 'detached' });
    await page.screenshot({ path: join(browser.shots, `${name}-390.png`), fullPage: narrow.fullPage ?? false });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.reload();
    await page.locator('main h1').waitFor({ state: 'visible' });
  }

  const agentFile = () => relative(process.cwd(), join(dir, 'agent.yaml'));
  const agentText = () => readFileSync(join(dir, 'agent.yaml'), 'utf8');

  it('signs in and lists the flows, with no load problem', async () => {
    await page.goto(`${stack.url}/console/flows`);
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Fluxos', exact: true }).waitFor({ state: 'visible' });
    expect(await page.getByRole('link', { name: 'Fluxos' }).getAttribute('aria-current')).toBe('page');
    const list = page.getByRole('list', { name: 'Fluxos carregados' });
    await list.waitFor({ state: 'visible' });
    for (const flow of stack.engine.listFlows()) expect(await list.getByRole('link', { name: flow.name, exact: true }).count()).toBe(1);
    expect(await list.textContent()).toContain('POST /leadagent');
    await page.getByText(/Nenhum problema na última leitura/).waitFor({ state: 'visible' });
    await shoot('flows');
  });

  it('draws the agent flow with its branches', async () => {
    await page.getByRole('link', { name: 'agent', exact: true }).click();
    await page.getByRole('heading', { name: 'Fluxo agent' }).waitFor({ state: 'visible' });
    const graph = page.getByRole('region', { name: 'Grafo do fluxo agent' });
    await graph.waitFor({ state: 'visible' });
    // Every step of the flow is a labelled button: id (type).
    const stepCount = (agentText().match(/^\s*- id: /gm) ?? []).length;
    expect(await graph.locator('g.node-step').count()).toBe(stepCount);
    for (const name of ['command (switch)', 'takeover (if)', 'parts (foreach)', 'stop_reset (stop)'])
      expect(await graph.getByRole('button', { name, exact: true }).count(), name).toBe(1);
    // Branch edges carry the YAML's branch names: the switch's case keys and default, the if's then / else.
    const labelsFrom = (node: string) => graph.locator(`g.edge[data-from="${node}"] .edge-label text`).allTextContents();
    expect(await labelsFrom('s_command')).toEqual(['reset', 'excluir', 'destrans', 'default']);
    expect(await labelsFrom('s_takeover')).toEqual(['then', 'else']);
    // The foreach body is framed and its last step loops back.
    expect(await graph.locator('g.group text').allTextContents()).toContain('parts: para cada item');
    expect(await graph.locator('g.edge-loop[data-to="s_parts"]').count()).toBeGreaterThan(0);
    // The drawing is laid out: no two nodes overlap.
    const boxes = await graph.locator('g.node').evaluateAll((nodes) =>
      nodes.map((n) => {
        const r = n.getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height };
      }),
    );
    const overlapping = boxes.filter((a, i) =>
      boxes.some((b, j) => j > i && a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1),
    );
    expect(overlapping).toEqual([]);
    await shoot('flow-agent-top');
  });

  it('selects a step with the keyboard and another with a click, showing its type, file:line and params', async () => {
    const graph = page.getByRole('region', { name: 'Grafo do fluxo agent' });
    const panel = page.getByRole('complementary', { name: 'Passo selecionado' });
    expect(await panel.textContent()).toContain('Selecione um passo');
    await graph.getByRole('button', { name: 'command (switch)', exact: true }).focus();
    await page.keyboard.press('Enter');
    await panel.getByRole('heading', { name: 'command' }).waitFor({ state: 'visible' });
    expect(await panel.locator('.step-location').textContent()).toBe(`${agentFile()}:${stepLine(agentText(), 'command')}`);
    expect(new URL(page.url()).searchParams.get('step')).toBe('command');

    const takeover = graph.getByRole('button', { name: 'takeover (if)', exact: true });
    await takeover.click();
    await panel.getByRole('heading', { name: 'takeover' }).waitFor({ state: 'visible' });
    expect(await takeover.getAttribute('aria-pressed')).toBe('true');
    expect(await panel.locator('.step-location').textContent()).toBe(`${agentFile()}:${stepLine(agentText(), 'takeover')}`);
    expect(await panel.textContent()).toContain('if');
    expect(await panel.locator('pre').textContent()).toContain('"condition": "{{ steps.sender.operator }}"');
    await shoot('flow-agent', { fullPage: true });
  });

  it('opens at the step named in the address', async () => {
    await page.goto(`${stack.url}/console/flows/agent?step=parts`);
    const panel = page.getByRole('complementary', { name: 'Passo selecionado' });
    await panel.getByRole('heading', { name: 'parts' }).waitFor({ state: 'visible' });
    expect(await panel.locator('.step-location').textContent()).toBe(`${agentFile()}:${stepLine(agentText(), 'parts')}`);
    await shoot('flow-agent-foreach');
  });

  it('lists a broken file of the flows directory with file:line:col', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'name: broken\nsteps:\n  - id: first\n    type: no.such.node\n');
    await pollFor('the reload', async () => {
      const res = await fetch(`${stack.url}/admin/flows`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return ((await res.json()) as FlowsResponse).problems.length > 0;
    });
    await page.goto(`${stack.url}/console/flows`);
    const list = page.getByRole('list', { name: 'Problemas de carregamento' });
    await list.waitFor({ state: 'visible' });
    expect(await list.locator('li').count()).toBe(1);
    expect(await list.locator('.problem-where').textContent()).toBe(`${relative(process.cwd(), broken)}:4:11`);
    expect(await list.textContent()).toContain('no.such.node');
    expect(await list.textContent()).toContain('[unknown-node-type]');
    // The flows already loaded keep serving, and are still listed.
    expect(await page.getByRole('link', { name: 'agent', exact: true }).count()).toBe(1);
    await shoot('flows-browser.problems');
    // The only failed request: the session check before signing in (401).
    expect(browser.problems.filter((text) => !text.includes('401'))).toEqual([]);
  });
});
