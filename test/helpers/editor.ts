import type { Page } from 'playwright-core';

/** The resource editor (CodeMirror) of the page. */
export const editorContent = (page: Page) => page.locator('[data-testid="code-editor"] .cm-content');

/** Replaces the editor's whole text as a user would: select all, then type (insert) the new text. */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await editorContent(page).click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
}

/** The lines the editor shows from the top of the document (CodeMirror renders what is in view). */
export async function editorTopText(page: Page): Promise<string> {
  await editorContent(page).click();
  await page.keyboard.press('Control+Home');
  return editorContent(page).innerText();
}
