// How to play: the guide every front end shows (rummy500.guide), as the server says it
// (GET /api/guide, in the page's language, for a table's rules), with pictures of its cards.
import { html, useState, useEffect } from './lib.js';
import { t, currentLanguage } from './i18n.js';
import { api } from './api.js';
import { Card, cardList } from './cards.js';

/** An example of the guide: its cards drawn (named for screen readers) and what they show. */
function Example({ example }) {
  return html`<figure class="guide-example">
    <span class="guide-cards" role="img" aria-label=${cardList(example.cards)}>
      ${example.cards.map((c, i) => html`<${Card} key=${i} text=${c} />`)}
    </span>
    <figcaption>${example.text}</figcaption>
  </figure>`;
}

/**
 * The guide for a table of these rules (`rules`: a table's rules line; `preset`: a preset's
 * name), its sections whose keys are in `skip` left out. Asked again when the language changes.
 */
export function Guide({ rules = '', preset = '', skip = [] }) {
  const [guide, setGuide] = useState(null);
  const [error, setError] = useState(null);
  const language = currentLanguage();
  useEffect(() => {
    let live = true;
    setError(null);
    api
      .guide({ rules, preset })
      .then((data) => live && setGuide(data))
      .catch((err) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [rules, preset, language]);
  if (error) return html`<p class="error" role="alert">${t('guide.error', { error })}</p>`;
  if (!guide) return html`<p class="muted">${t('guide.loading')}</p>`;
  return html`<div class="guide" data-guide data-rules=${guide.rules}>
    ${guide.sections
      .filter((s) => !skip.includes(s.key))
      .map(
        (s) => html`<section key=${s.key} data-section=${s.key}>
          <h3>${s.title}</h3>
          ${s.paragraphs.map((p, i) => html`<p key=${i}>${p}</p>`)}
          ${s.examples.map((e, i) => html`<${Example} key=${i} example=${e} />`)}
        </section>`,
      )}
  </div>`;
}
