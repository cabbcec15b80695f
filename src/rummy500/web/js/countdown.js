// Seconds left until a deadline on this browser's clock (a Rummy! call, a turn's timer).
import { html, useState, useEffect } from './lib.js';
import { t } from './i18n.js';

/** `until`: the deadline (ms since the epoch); `label`: a catalog key for its spoken name. */
export function Countdown({ until, label }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((x) => x + 1), 250);
    return () => clearInterval(timer);
  }, [until]);
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  return html`<span class="countdown" aria-label=${label ? t(label, { n: left }) : undefined}>${left}</span>`;
}
