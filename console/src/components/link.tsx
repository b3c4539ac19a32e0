// An in-app link: a real <a href> (keyboard, middle click, copy link) that navigates without reload.
import type { ComponentChildren } from 'preact';
import { isPlainClick, navigate } from '../router.js';

interface LinkProps {
  href: string;
  class?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
  children: ComponentChildren;
}

/** An `<a href>` that navigates inside the console on a plain left click and behaves as a normal link otherwise. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
