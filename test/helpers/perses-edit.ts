import type { Page } from 'playwright-core';
import { waitFor } from './wait.js';

/**
 * Steps through Perses' edit mode in a dashboard page (the buttons and fields of
 * @perses-dev/dashboards 0.52, as a user finds them).
 */

/** Clicks Edit and waits for the edit mode's Save button. */
export async function enterEditMode(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
}

/**
 * Renames a panel with its editor (the pencil in its header, Name, Apply). A narrow panel's
 * header holds its actions in a menu (Perses' 'show panel actions for ...'): it is opened first.
 */
export async function renamePanel(page: Page, from: string, to: string): Promise<void> {
  const edit = page.getByRole('button', { name: `edit panel ${from}`, exact: true }).first();
  const menu = page.getByRole('button', { name: `show panel actions for ${from}`, exact: true }).first();
  await waitFor(`the edit button or the actions menu of panel ${from}`, async () => (await edit.isVisible()) || (await menu.isVisible()));
  if (!(await edit.isVisible())) await menu.click();
  await edit.click();
  const name = page.getByRole('textbox', { name: 'Name' });
  await name.fill(to);
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await name.waitFor({ state: 'detached' });
}

/**
 * Saves, as a user wanting only their own edits saved: when Perses asks whether the current time
 * range and variable values become the defaults, both boxes are unticked. Waits for the page's
 * notice of the new version.
 */
export async function saveDashboard(page: Page, version: number): Promise<void> {
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const confirm = page.getByRole('button', { name: 'Save Changes' });
  const notice = page.getByTestId('update-notice');
  const saved = async () => (await notice.innerText().catch(() => '')).includes(`Saved: version ${version}.`);
  await waitFor('the save confirmation or the saved notice', async () => (await confirm.count()) > 0 || (await saved()));
  if ((await confirm.count()) > 0) {
    for (const box of await page.getByRole('dialog').getByRole('checkbox').all()) {
      if ((await box.isEnabled()) && (await box.isChecked())) await box.uncheck();
    }
    await confirm.click();
  }
  await waitFor(`the notice "Saved: version ${version}."`, saved, 15_000);
}
