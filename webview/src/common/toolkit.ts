/** Registers the @vscode/webview-ui-toolkit components the views use. */
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeCheckbox,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeTextField,
  vsCodeProgressRing,
} from '@vscode/webview-ui-toolkit';

let done = false;
export function registerToolkit(): void {
  if (done) return;
  done = true;
  provideVSCodeDesignSystem().register(
    vsCodeButton(),
    vsCodeCheckbox(),
    vsCodeDropdown(),
    vsCodeOption(),
    vsCodeTextField(),
    vsCodeProgressRing(),
  );
}

/** value of a toolkit text field / dropdown / native input */
export function valueOf(el: Element): string {
  const v = (el as unknown as { value?: unknown }).value;
  return typeof v === 'string' ? v : '';
}
export function checkedOf(el: Element): boolean {
  return Boolean((el as unknown as { checked?: unknown }).checked);
}
