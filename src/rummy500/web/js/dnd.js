// Drag and drop of the hand's cards with SortableJS (mouse, pen and touch alike): drag within the
// hand to reorder it, or onto a meld (lay off), the discard pile (discard) or the meld area (a
// new meld of the selection). Sortable moves DOM nodes itself; Preact owns them, so every drag is
// undone in the DOM at its end and reported as a change of state instead.
import Sortable from 'sortablejs';
import { useEffect, useRef } from './lib.js';

function pointOf(event) {
  if (!event) return null;
  const touch = (event.changedTouches && event.changedTouches[0]) || (event.touches && event.touches[0]);
  const p = touch || event;
  return typeof p.clientX === 'number' ? { x: p.clientX, y: p.clientY } : null;
}

/** The drop target under a point: the nearest element with data-drop, if any. */
export function dropTargetAt(point, ignore) {
  if (!point) return null;
  for (const el of document.elementsFromPoint(point.x, point.y)) {
    if (ignore && (el === ignore || ignore.contains(el))) continue;
    const target = el.closest('[data-drop]');
    if (target) return target;
    if (el.closest('[data-hand]')) return null;
  }
  return null;
}

/**
 * Make the children of the element `ref` draggable. `onStart(index)` when a drag begins,
 * `onReorder(from, to)` for a move within the hand, `onDrop(index, target)` for a drop on a
 * data-drop element; `animationMs()` is the animation length wanted now.
 */
export function useSortable(ref, { onStart, onReorder, onDrop, onCancel, animationMs, disabled }) {
  const handlers = useRef({});
  handlers.current = { onStart, onReorder, onDrop, onCancel, animationMs };
  useEffect(() => {
    const el = ref.current;
    if (!el || disabled) return undefined;
    let last = null;
    const track = (event) => {
      const p = pointOf(event);
      if (p) last = p;
    };
    const sortable = Sortable.create(el, {
      animation: handlers.current.animationMs(),
      forceFallback: true,
      fallbackTolerance: 4,
      delay: 120,
      delayOnTouchOnly: true,
      draggable: '[data-card-id]',
      ghostClass: 'drag-ghost',
      chosenClass: 'drag-chosen',
      dragClass: 'drag-moving',
      onStart(evt) {
        last = null;
        document.addEventListener('pointermove', track, true);
        document.addEventListener('mousemove', track, true);
        document.addEventListener('touchmove', track, true);
        handlers.current.onStart && handlers.current.onStart(evt.oldIndex);
      },
      onEnd(evt) {
        document.removeEventListener('pointermove', track, true);
        document.removeEventListener('mousemove', track, true);
        document.removeEventListener('touchmove', track, true);
        const { oldIndex, newIndex, item, from } = evt;
        // give the node back to where Preact put it
        from.removeChild(item);
        from.insertBefore(item, from.children[oldIndex] || null);
        // Sortable swallows the next click after a drag that ended outside its list (its fix
        // for a click after a drag): let that be this harmless one, not the player's next click
        setTimeout(() => document.body.dispatchEvent(new MouseEvent('click', { bubbles: true })), 0);
        const point = pointOf(evt.originalEvent) || last;
        const target = dropTargetAt(point, from);
        if (target) handlers.current.onDrop(oldIndex, target);
        else if (newIndex !== oldIndex) handlers.current.onReorder(oldIndex, newIndex);
        else handlers.current.onCancel && handlers.current.onCancel();
      },
    });
    return () => sortable.destroy();
  }, [ref, disabled]);
}
