// A modal confirmation (native <dialog>: focus stays inside, Escape cancels). With `typed`, the
// confirm button stays disabled until the user types the expected digits (spaces, dashes and
// other non-digits ignored). When it closes, focus goes back to the element that had it when it
// opened (the button that opened it), once that button is enabled again and still on the page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { digitsOf } from '../format.js';
import { t } from '../i18n/index.js';

interface ConfirmDialogProps {
  title: string;
  text: string;
  confirmLabel: string;
  /** The button that closes it without acting; default "Cancelar". */
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  /** The digits the user must type, and the field's label. */
  typed?: { label: string; digits: string };
  onConfirm: () => void;
  onCancel: () => void;
}

/** A modal asking to confirm an action; opens on mount and closes on unmount. With `typed`, confirming needs the expected digits typed first. */
export function ConfirmDialog({ title, text, confirmLabel, cancelLabel, danger, busy, typed, onConfirm, onCancel }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [entry, setEntry] = useState('');
  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (element && !element.open) element.showModal();
    return () => {
      element?.close();
      // After the render that closes it (the opener may be re-enabled in that same render).
      setTimeout(() => {
        if (opener?.isConnected) opener.focus();
      }, 0);
    };
  }, []);
  const matches = !typed || (digitsOf(entry) !== '' && digitsOf(entry) === typed.digits);
  const submit = (event: Event) => {
    event.preventDefault();
    if (matches && !busy) onConfirm();
  };
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby="confirm-title"
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <form onSubmit={submit}>
        <h2 id="confirm-title">{title}</h2>
        <p>{text}</p>
        {typed ? (
          <label class="field">
            <span>{typed.label}</span>
            <input
              type="text"
              inputMode="numeric"
              autoComplete="off"
              value={entry}
              onInput={(event) => setEntry(event.currentTarget.value)}
            />
          </label>
        ) : null}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={onCancel} disabled={busy}>
            {cancelLabel ?? t.common.cancel}
          </button>
          <button type="submit" class={danger ? 'button button-danger' : 'button button-primary'} disabled={!matches || busy}>
            {busy ? t.lead.working : confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
