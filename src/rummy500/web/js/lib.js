// The few things every component needs: Preact's h and render, htm bound to h, and the hooks.
import { h, render, Fragment } from 'preact';
import htm from 'htm';

export { h, render, Fragment };
export {
  useState,
  useEffect,
  useLayoutEffect,
  useRef,
  useMemo,
  useCallback,
  useReducer,
  useId,
} from 'preact/hooks';

export const html = htm.bind(h);

/** Join class names, skipping the falsy ones: cls('card', selected && 'selected'). */
export function cls(...names) {
  return names.filter(Boolean).join(' ');
}
